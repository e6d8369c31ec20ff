import { findApiRoute, OPENAPI_PATH, type ApiRoute } from '../../src/http';

/** One real request to a running component. */
export interface Probe {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * Sends a real request and checks the answer against the route table the component's
 * `/openapi.json` is built from: the route exists, the status is declared for it, and a
 * JSON body validates against the declared zod schema. Returns the status and body.
 */
export async function expectConforms(baseUrl: string, routes: readonly ApiRoute[], probe: Probe): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${probe.path}`, {
    method: probe.method,
    redirect: 'manual',
    ...(probe.headers ? { headers: probe.headers } : {}),
    ...(probe.body !== undefined ? { body: probe.body } : {}),
  });
  const path = probe.path.split('?')[0]!;
  const route = findApiRoute(routes, probe.method, path);
  const where = `${probe.method} ${path} → ${res.status}`;
  expect({ where, documented: route !== undefined }).toEqual({ where, documented: true });
  const declared = route!.responses[res.status];
  expect({ where, declared: declared !== undefined }).toEqual({ where, declared: true });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) {
    body = JSON.parse(text) as unknown;
    if (declared!.schema) {
      const parsed = declared!.schema.safeParse(body);
      expect({ where, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ where, issues: [] });
    }
  }
  return { status: res.status, body };
}

/** `/openapi.json` is an OpenAPI 3.1 document built from exactly this route table. */
export async function expectServedDocument(baseUrl: string, document: object, routes: readonly ApiRoute[]): Promise<void> {
  const res = await fetch(`${baseUrl}${OPENAPI_PATH}`);
  expect(res.status).toBe(200);
  const served = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(served.openapi).toBe('3.1.0');
  expect(served).toEqual(JSON.parse(JSON.stringify(document)));
  const listed = Object.entries(served.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
  expect(listed.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
}

/** Every route the table lists is served: none answers the JSON 404 for an unknown route. */
export async function expectEveryRouteServed(baseUrl: string, routes: readonly ApiRoute[]): Promise<void> {
  for (const route of routes) {
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    const res = await fetch(`${baseUrl}${path}`, { method: route.method.toUpperCase(), redirect: 'manual' });
    const text = await res.text();
    expect({ route: `${route.method} ${route.path}`, unknown: res.status === 404 && text.includes('no route for') }).toEqual({
      route: `${route.method} ${route.path}`,
      unknown: false,
    });
  }
}
