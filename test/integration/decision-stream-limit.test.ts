/**
 * The console's live decision streams are bounded per control-plane node (docs/reference/limits.md,
 * DECISION_STREAM.maxOpen): past the bound a new stream is 429 `too_many_streams` with
 * `Retry-After`, and once one closes another may open.
 */
import { DECISION_STREAM } from '../../src/control-plane/stream-decisions';
import { USERS } from '../apps/app-fixture';
import { waitFor } from './stack-client';
import { consoleToken, startStack, type Stack } from './stack-fixture';

let stack: Stack;
let token: string;
beforeAll(async () => {
  stack = await startStack();
  token = await consoleToken(stack, USERS.morty.email);
});
afterAll(async () => {
  await stack?.close();
});

it(`serves ${DECISION_STREAM.maxOpen} streams at once and refuses one more with 429 too_many_streams`, async () => {
  const open = (signal?: AbortSignal) =>
    fetch(`${stack.relayUrl}/console/api/tenants/${stack.demo.tenantId}/decisions/stream`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
  const controllers = Array.from({ length: DECISION_STREAM.maxOpen }, () => new AbortController());
  try {
    const streams = await Promise.all(controllers.map((c) => open(c.signal)));
    expect(streams.every((r) => r.status === 200)).toBe(true);
    const refused = await open();
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after'), body: await refused.json() }).toEqual({
      status: 429,
      retryAfter: '5',
      body: { code: 'too_many_streams', message: 'too many decision streams are open on this node; try again shortly' },
    });
    // One closes (its poll notices within one period): another may open.
    controllers.pop()!.abort();
    const again = await waitFor('a free stream', async () => {
      const c = new AbortController();
      const res = await open(c.signal);
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
