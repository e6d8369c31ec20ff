// The AuthZEN requests bench:peer sends to both PDPs, and the check that both decide them alike.
// One body serves both: Outpost resolves the subject in its directory (roles nest there) and
// hands `properties` to Cedar as context, which the RBAC policy does not read; Cerbos has no
// directory and takes the principal's roles from the `cerbos.roles` property (its AuthZEN
// mapping), which carries the user's directory roles.

/** A directory user as the bench sends it. */
export interface PeerUser {
  readonly id: string;
  readonly email: string;
  readonly roles: readonly string[];
}

const ACTIONS = ['GET', 'PUT', 'POST', 'DELETE'];

const subjectOf = (user: PeerUser) => ({ type: 'user', id: user.id, properties: { 'cerbos.roles': user.roles } });
const resource = (id: string) => ({ type: 'Resource', id });

/**
 * The body of one request: a single evaluation (DELETE) when `batch` is 1, else a batch of
 * `batch` evaluations cycling through GET, PUT, POST, DELETE. With `misses`, resource ids hold
 * autocannon's `[<id>]`, replaced by a fresh id in every request, so no decision repeats.
 */
export function peerBodies(user: PeerUser, batch: number, misses: boolean): string {
  const id = (i: number) => (misses ? `r-[<id>]-${i}` : `r-${i}`);
  if (batch === 1) return JSON.stringify({ subject: subjectOf(user), action: { name: 'DELETE' }, resource: resource(id(0)) });
  return JSON.stringify({
    subject: subjectOf(user),
    evaluations: Array.from({ length: batch }, (_v, i) => ({ action: { name: ACTIONS[i % ACTIONS.length] }, resource: resource(id(i)) })),
  });
}

async function ask(url: string, body: string): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  const answer = (await res.json()) as { decision?: unknown; evaluations?: { decision: unknown }[] };
  return answer.evaluations ? answer.evaluations.map((e) => e.decision) : answer.decision;
}

/**
 * Asks both PDPs the same questions — every user, every action and one more (PATCH), single
 * and batched, and the bench's own bodies with their ids filled in — and throws on the first
 * decision that differs. Returns how many decisions were compared.
 */
export async function checkEquivalence(outpostUrl: string, cerbosUrl: string, users: readonly PeerUser[]): Promise<number> {
  const bodies: string[] = [];
  for (const user of users) {
    for (const action of [...ACTIONS, 'PATCH']) bodies.push(JSON.stringify({ subject: subjectOf(user), action: { name: action }, resource: resource('mega-seed') }));
    bodies.push(peerBodies(user, 25, false), peerBodies(user, 25, true).replaceAll('[<id>]', 'check'), peerBodies(user, 1, true).replaceAll('[<id>]', 'check'));
  }
  let compared = 0;
  for (const body of bodies) {
    const path = body.includes('"evaluations"') ? '/access/v1/evaluations' : '/access/v1/evaluation';
    const [ours, theirs] = [await ask(`${outpostUrl}${path}`, body), await ask(`${cerbosUrl}${path}`, body)];
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error(`the PDPs disagree on ${body}: Outpost ${JSON.stringify(ours)}, Cerbos ${JSON.stringify(theirs)}`);
    compared += Array.isArray(ours) ? ours.length : 1;
  }
  return compared;
}
