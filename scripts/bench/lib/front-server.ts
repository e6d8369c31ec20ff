// Bench child: the round-robin TCP front in a process of its own, so that the sockets it
// pipes do not share an event loop with the load generator (as a real load balancer would not).
import { startRoundRobinFront, type RoundRobinFront } from '../../lib/round-robin-front';
import { serveParent } from './child-endpoint';

let front: RoundRobinFront | undefined;

async function start(args: { backends: string[] }): Promise<{ url: string }> {
  front = await startRoundRobinFront({ backends: args.backends });
  return { url: front.url };
}

serveParent({ start, pid: () => process.pid }, async () => {
  await front?.close();
});
