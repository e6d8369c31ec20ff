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

const subjectOf = (user: PeerUser, nonce?: string) => ({
  type: 'user',
  id: user.id,
  properties: nonce === undefined ? { 'cerbos.roles': user.roles } : { 'cerbos.roles': user.roles, nonce },
});
const resource = (id: string) => ({ type: 'Resource', id });

/**
 * What changes from one request to the next: nothing (`same`: decision caches answer), the
 * resource ids (`new-ids`), or the resource ids and a context no policy reads (`new-context`:
 * a `nonce` subject property, and in a batch each item's own `context.question`). Outpost's
 * decision cache keys on the context as Cedar gets it, so `new-context` makes every decision
 * a new question only where the action's schema declares those attributes: bench:peer pushes
 * such an image for its "Cedar on every decision" rows.
 */
export type PeerVariation = 'same' | 'new-ids' | 'new-context';

/**
 * The body of one request: a single evaluation (DELETE) when `batch` is 1, else a batch of
 * `batch` evaluations cycling through GET, PUT, POST, DELETE. What varies holds autocannon's
 * `[<id>]`, replaced by a fresh id in every request.
 */
export function peerBodies(user: PeerUser, batch: number, variation: PeerVariation): string {
  const id = (i: number) => (variation === 'same' ? `r-${i}` : `r-[<id>]-${i}`);
  const subject = subjectOf(user, variation === 'new-context' ? '[<id>]' : undefined);
  if (batch === 1) return JSON.stringify({ subject, action: { name: 'DELETE' }, resource: resource(id(0)) });
  return JSON.stringify({
    subject,
    evaluations: Array.from({ length: batch }, (_v, i) => ({
      action: { name: ACTIONS[i % ACTIONS.length] },
      resource: resource(id(i)),
      ...(variation === 'new-context' ? { context: { question: `[<id>]-${i}` } } : {}),
    })),
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
    for (const variation of ['same', 'new-ids', 'new-context'] as const) {
      for (const batch of [1, 25]) bodies.push(peerBodies(user, batch, variation).replaceAll('[<id>]', 'check'));
    }
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
