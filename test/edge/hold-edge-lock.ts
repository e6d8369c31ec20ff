// Child process for edge-lock.test.ts: starts an edge runtime on the data directory argv[2]
// (no control plane needed: an edge starts without one), prints `started <pid>` and then
// holds its lock until it is killed — or, with argv[3] = `once`, closes and exits 0. A
// refusal to start is printed on stderr, exit code 1.
import { createEdgeRuntime } from '../../src/edge';
import { silentLogger } from '../../src/observability';

const HOUR = 3_600_000;
const runtime = createEdgeRuntime({
  relayUrl: 'http://127.0.0.1:9',
  connectionId: 'conn',
  connectionSecret: 'secret',
  dataDir: process.argv[2]!,
  discoveryIntervalMs: HOUR,
  directorySyncIntervalMs: HOUR,
  fullSyncIntervalMs: HOUR,
  logger: silentLogger(),
});

runtime.start().then(
  async () => {
    process.stdout.write(`started ${process.pid}\n`);
    if (process.argv[3] === 'once') {
      await runtime.close();
      process.exit(0);
    }
    // Nothing of the runtime keeps the process alive (the lock's socket and the relay's timers
    // are unref'd), and the holder must live until it is killed: it exited after ~1.3 s, and a
    // test that was slower than that to try the lock found it free.
    setInterval(() => undefined, HOUR);
  },
  (err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  },
);
