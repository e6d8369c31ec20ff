/**
 * A connected edge does not keep its upgrade request alive: the relay's upgrade handler once
 * kept each edge's `IncomingMessage` (headers included) and its head buffer reachable for as
 * long as the socket lived, through a closure sharing their scope (docs/benchmarks-history.md, "Relay at
 * scale": 13.4 → 9.0 KB of heap per edge). A WeakRef to the request must clear after a full GC
 * while the edge stays registered.
 */
import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startRelayKit, type RelayKit } from './relay-kit';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let kit: RelayKit;
afterEach(() => kit?.stop());

it('lets the upgrade request of a connected edge be collected', async () => {
  kit = await startRelayKit();
  let request: WeakRef<IncomingMessage> | undefined;
  kit.server.prependListener('upgrade', (req: IncomingMessage) => {
    request = new WeakRef(req);
  });
  const edge = await kit.edge(kit.a, { instanceId: 'kept-edge' });
  expect(request).toBeDefined();
  // Collected once nothing reachable holds it; a few rounds, as finalization of the
  // request's parser may take one.
  for (let round = 0; round < 5 && request!.deref() !== undefined; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  expect(request!.deref()).toBeUndefined();
  expect(edge.ws.readyState).toBe(edge.ws.OPEN);
});
