// The mixed-shape load of `npm run bench:stress`: the same requests again (decision-cache
// hits), then new ones (misses); single decisions, then AuthZEN batches of 25, then the Topaz
// shape; 32 connections, then 1; against the sidecar edge and both sample apps in turn.
// Changing the shape is what used to kill a process (docs/architecture.md, "The V8 crash"):
// the JIT optimizes for one shape and deoptimizes when the next one arrives.
import autocannon from 'autocannon';

/** One phase: a target, a request factory, how many connections. */
export interface Phase {
  readonly label: string;
  readonly url: string;
  readonly connections: number;
  /** The statuses a correct answer has (a deny is a correct 403; Morty's role changes during the run). */
  readonly expected: readonly number[];
  /** The n-th request of the phase (method, path, headers, body). */
  readonly request: (n: number) => { method: 'GET' | 'POST' | 'DELETE'; path: string; headers: Record<string, string>; body?: string };
}

/** What one phase of load saw. */
export interface PhaseResult {
  readonly requests: number;
  /** 5xx answers, connection errors and time-outs: none is expected. */
  readonly errors: number;
  /** Answers with a status outside the phase's expected ones, by status (5xx included). */
  readonly unexpected: Readonly<Record<string, number>>;
}

/** Whose token a request carries, and which directory users a decision names. */
export interface StressSubjects {
  readonly edgeUrl: string;
  readonly rbacUrl: string;
  readonly todoUrl: string;
  /** Directory user ids (and an e-mail, and an unknown id: denied without Cedar). */
  readonly principals: readonly string[];
  /** Access tokens of an admin and of an editor. */
  readonly adminToken: string;
  readonly editorToken: string;
}

const ACTIONS = ['GET', 'PUT', 'POST', 'DELETE'] as const;
const OK = [200];
// Morty is an editor (DELETE denied) or, while the run has granted him admin, allowed.
const OK_OR_DENIED = [200, 403];
const json = { 'content-type': 'application/json' };

/** The phases, in the order they run (the list is repeated until time is up). */
export function stressPhases(s: StressSubjects): Phase[] {
  const who = (n: number) => s.principals[n % s.principals.length] as string;
  const action = (n: number) => ACTIONS[(n >> 2) % ACTIONS.length] as string;
  // `fresh` names a new resource every request, with a resource property no policy reads (a
  // cache miss: the RBAC policy decides by resource type, so a new id alone would be answered
  // from the cache, and so would a context no action declares; a resource's properties stay in
  // the key, docs/architecture.md, Flow 1); otherwise one of three (hits).
  const subject = (n: number) => ({ type: 'user', id: who(n) });
  const resource = (fresh: boolean, id: string, n: number) => (fresh ? { type: 'Resource', id, properties: { question: n } } : { type: 'Resource', id });
  const evaluation = (fresh: boolean) => (n: number) => ({
    method: 'POST' as const,
    path: '/access/v1/evaluation',
    headers: json,
    body: JSON.stringify({ subject: subject(n), action: { name: action(n) }, resource: resource(fresh, fresh ? `r-${n}` : `r-${n % 3}`, n) }),
  });
  const batch = (fresh: boolean) => (n: number) => ({
    method: 'POST' as const,
    path: '/access/v1/evaluations',
    headers: json,
    body: JSON.stringify({
      subject: subject(n),
      evaluations: Array.from({ length: 25 }, (_v, i) => ({ action: { name: ACTIONS[i % 4] }, resource: resource(fresh, fresh ? `b-${n}-${i}` : `b-${i % 5}`, n) })),
    }),
  });
  const topaz = (fresh: boolean) => (n: number) => ({
    method: 'POST' as const,
    path: '/api/v2/authz/is',
    headers: json,
    body: JSON.stringify({
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: who(n) },
      policy_context: { path: `rbac.${action(n)}`, decisions: ['allowed'] },
      resource_context: fresh ? { type: 'Resource', id: `t-${n}`, question: n } : { type: 'Resource', id: 't-0' },
    }),
  });
  const remove = (token: string, fresh: boolean) => (n: number) => ({
    method: 'DELETE' as const,
    path: fresh ? `/resource/stress-${n}` : '/resource/mega-seed',
    headers: { authorization: `Bearer ${token}` },
  });
  const todos = (token: string) => (n: number) => ({ method: 'GET' as const, path: n % 2 === 0 ? '/todos' : '/users/rick@the-citadel.com', headers: { authorization: `Bearer ${token}` } });
  return [
    { label: 'sidecar evaluation, hits, c=32', url: s.edgeUrl, connections: 32, expected: OK, request: evaluation(false) },
    { label: 'sidecar evaluation, misses, c=32', url: s.edgeUrl, connections: 32, expected: OK, request: evaluation(true) },
    { label: 'sidecar batch of 25, hits, c=32', url: s.edgeUrl, connections: 32, expected: OK, request: batch(false) },
    { label: 'sidecar batch of 25, misses, c=1', url: s.edgeUrl, connections: 1, expected: OK, request: batch(true) },
    { label: 'sidecar Topaz is, misses, c=32', url: s.edgeUrl, connections: 32, expected: OK, request: topaz(true) },
    { label: 'sidecar evaluation, misses, c=1', url: s.edgeUrl, connections: 1, expected: OK, request: evaluation(true) },
    { label: 'RBAC app DELETE, admin, same name, c=32', url: s.rbacUrl, connections: 32, expected: OK, request: remove(s.adminToken, false) },
    { label: 'RBAC app DELETE, editor (403), new names, c=32', url: s.rbacUrl, connections: 32, expected: OK_OR_DENIED, request: remove(s.editorToken, true) },
    { label: 'sidecar batch of 25, misses, c=32', url: s.edgeUrl, connections: 32, expected: OK, request: batch(true) },
    { label: 'sidecar Topaz is, hits, c=1', url: s.edgeUrl, connections: 1, expected: OK, request: topaz(false) },
    { label: 'RBAC app DELETE, admin, new names, c=1', url: s.rbacUrl, connections: 1, expected: OK, request: remove(s.adminToken, true) },
    { label: 'todo app GET, c=16', url: s.todoUrl, connections: 16, expected: OK, request: todos(s.adminToken) },
    { label: 'RBAC app DELETE, editor (403), same name, c=1', url: s.rbacUrl, connections: 1, expected: OK_OR_DENIED, request: remove(s.editorToken, false) },
  ];
}

/** Runs one phase for `seconds` (loopback only). */
export function runPhase(phase: Phase, seconds: number): Promise<PhaseResult> {
  let n = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: phase.url,
        connections: phase.connections,
        duration: seconds,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => {
              const next = phase.request(n);
              n += 1;
              return { ...req, ...next };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const unexpected: Record<string, number> = {};
        for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
          if (!phase.expected.includes(Number(status))) unexpected[status] = stats?.count ?? 0;
        }
        resolve({ requests: result.requests.total, errors: result['5xx'] + result.errors + result.timeouts, unexpected });
      },
    );
  });
}
