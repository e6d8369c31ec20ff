// The peer PDP of bench:peer: Cerbos's own server, as its npm package ships it
// (@cerbos/cerbos-linux-x64, fetched on first use into the temp folder), on loopback, reading
// the bench's policy folder (scripts/bench/peer/). Telemetry is off: the bench talks to no one.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { findProjectRoot } from '../../../src/config';
import { freePort } from '../../lib/free-port';
import { unpackedPackage } from '../../lib/npm-package';

/** How long Cerbos may take to answer its first request before the bench gives up. */
export const CERBOS_START_TIMEOUT_MS = 15_000;
/** Grace before a Cerbos that ignores SIGTERM is killed. */
const STOP_GRACE_MS = 5_000;

export interface CerbosServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn to its first answered request. */
  readonly startedInMs: number;
  stop(): Promise<void>;
}

/** The Cerbos release the bench runs, fetched from the npm registry on first use. */
export const CERBOS_VERSION = '0.55.0';

/**
 * The binary from the npm package, unpacked once outside the project (scripts/lib/npm-package.ts):
 * a 96 MB Linux-only download that `npm ci` should not make everyone fetch, and could not
 * install on macOS at all; a clear error on another platform.
 */
function cerbosBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`bench:peer runs Cerbos from @cerbos/cerbos-linux-x64: Linux x64 only (this is ${process.platform}/${process.arch})`);
  const dir = unpackedPackage('@cerbos/cerbos-linux-x64', CERBOS_VERSION, 'outpost-cerbos', (line) => console.log(line));
  return join(dir, 'cerbos-linux-x64');
}

/** Starts Cerbos on loopback with the bench's policies and waits for its first answer. */
export async function startCerbos(): Promise<CerbosServer> {
  const [http, grpc] = [await freePort(), await freePort()];
  // Found (and on first use downloaded, 96 MB) before the clock starts: the start deadline is
  // Cerbos's own start, not the registry's speed.
  const binary = cerbosBinary();
  const started = performance.now();
  const child: ChildProcess = spawn(
    binary,
    [
      'server',
      `--set=server.httpListenAddr=127.0.0.1:${http}`,
      `--set=server.grpcListenAddr=127.0.0.1:${grpc}`,
      '--set=storage.driver=disk',
      `--set=storage.disk.directory=${join(findProjectRoot(), 'scripts', 'bench', 'peer')}`,
      '--set=storage.disk.watchForChanges=false',
      '--set=telemetry.disabled=true',
      '--log-level=error',
    ],
    // Its stderr is not shown: it logs every request a load run cuts off at its end ("context canceled").
    { stdio: 'ignore', env: { ...process.env, CERBOS_NO_TELEMETRY: '1' } },
  );
  const exited = once(child, 'exit');
  const url = `http://127.0.0.1:${http}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  };
  // Polled: Cerbos says nothing on stdout we could wait for at --log-level=error.
  const deadline = started + CERBOS_START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Cerbos exited at start (${child.exitCode})`);
    try {
      const res = await fetch(`${url}/_cerbos/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`Cerbos did not answer within ${CERBOS_START_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url, pid: child.pid as number, startedInMs: performance.now() - started, stop };
}
