/**
 * The console's live decision streams are bounded per user, per tenant and per node
 * (docs/reference/limits.md, DECISION_STREAM): past their own bound a user's new stream is 429
 * `too_many_streams` with `Retry-After`, while another member of the same tenant still opens
 * one; once one of theirs closes, another may open. (The bounds themselves, tenant and node
 * included: test/control-plane/stream-slots.test.ts.)
 */
import { DECISION_STREAM } from '../../src/decision-store/stream-decisions';
import { USERS } from '../apps/app-fixture';
import { waitFor } from './stack-client';
import { consoleToken, startStack, type Stack } from './stack-fixture';

let stack: Stack;
let morty: string;
let rick: string;
beforeAll(async () => {
  stack = await startStack();
  morty = await consoleToken(stack, USERS.morty.email);
  rick = await consoleToken(stack, USERS.rick.email);
});
afterAll(async () => {
  await stack?.close();
});

it(`serves a user ${DECISION_STREAM.maxPerUser} streams at once, refuses them one more with 429, and still serves another member`, async () => {
  const open = (token: string, signal?: AbortSignal) =>
    fetch(`${stack.relayUrl}/console/api/tenants/${stack.demo.tenantId}/decisions/stream`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
  const controllers = Array.from({ length: DECISION_STREAM.maxPerUser }, () => new AbortController());
  try {
    const streams = await Promise.all(controllers.map((c) => open(morty, c.signal)));
    expect(streams.map((r) => r.status)).toEqual(controllers.map(() => 200));
    const refused = await open(morty);
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after'), body: await refused.json() }).toEqual({
      status: 429,
      retryAfter: '5',
      body: { code: 'too_many_streams', message: 'too many decision streams are open for you; try again shortly' },
    });
    // Morty's streams do not take Rick's: the same tenant, another user.
    const other = new AbortController();
    controllers.push(other);
    expect((await open(rick, other.signal)).status).toBe(200);
    // One of Morty's closes (its poll notices within one period): he may open another.
    controllers.shift()!.abort();
    const again = await waitFor('a free stream', async () => {
      const c = new AbortController();
      const res = await open(morty, c.signal);
      if (res.status === 200) {
        controllers.push(c);
        return res;
      }
      await res.body?.cancel();
      return undefined;
    });
    expect(again.status).toBe(200);
  } finally {
    for (const c of controllers) c.abort();
  }
});
