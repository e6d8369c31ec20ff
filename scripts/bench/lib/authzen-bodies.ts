// AuthZEN request bodies for the sidecar benchmark.

/** One `/access/v1/evaluation` body: may this user do `action` on a `Resource`? */
export function evaluationBody(principal: string, action: string, resourceId: string): string {
  return JSON.stringify({ subject: { type: 'user', id: principal }, action: { name: action }, resource: { type: 'Resource', id: resourceId } });
}

/** One `/access/v1/evaluations` body: `count` resources, one action each (GET/PUT/POST/DELETE in turn). */
export function evaluationsBody(principal: string, count: number): string {
  const actions = ['GET', 'PUT', 'POST', 'DELETE'];
  return JSON.stringify({
    subject: { type: 'user', id: principal },
    evaluations: Array.from({ length: count }, (_v, i) => ({ action: { name: actions[i % actions.length] }, resource: { type: 'Resource', id: `resource-${i}` } })),
  });
}
