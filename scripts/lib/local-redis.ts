import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a fresh redis-server may take to answer PING. */
export const REDIS_START_TIMEOUT_MS = 10_000;

/** A throwaway redis-server on loopback: no persistence, its own temporary directory. */
export interface LocalRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** SIGTERM, waits for the exit, deletes the directory. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), waits for the exit; the directory is kept for {@link restart}. */
  kill(): Promise<void>;
  /** Stops the server if it runs and starts a new, empty one on the same port. */
  restart(): Promise<void>;
}

/** A free loopback port, as the kernel hands one out to a listener on port 0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket; true on `+PONG`. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns redis-server and resolves once it answers PING, or rejects with what it printed. */
async function spawnRedis(port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-2000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let failure: Error | undefined;
  child.once('error', (err: NodeJS.ErrnoException) => {
    failure =
      err.code === 'ENOENT'
        ? new Error('redis-server is not installed; install it with: apt-get install -y redis-server')
        : new Error(`redis-server could not be started: ${err.message}`);
  });
  const deadline = Date.now() + REDIS_START_TIMEOUT_MS;
  for (;;) {
    if (failure) throw failure;
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}: ${output.trim()}`);
    if (await ping(port)) return child;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited(child);
      throw new Error(`redis-server did not answer PING on port ${port} within ${REDIS_START_TIMEOUT_MS} ms: ${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts a redis-server for a test or a benchmark (`--save ''`, `--appendonly no`: a restart
 * comes back empty, as a Redis used only for routing may). Without `port`, a free loopback
 * port is taken.
 */
export async function startLocalRedis(options: { port?: number } = {}): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'outpost-redis-'));
  let child: ChildProcess | undefined;
  try {
    child = await spawnRedis(port, dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  async function halt(signal: NodeJS.Signals): Promise<void> {
    const running = child;
    child = undefined;
    if (!running) return;
    running.kill(signal);
    await exited(running);
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => halt('SIGKILL'),
    async restart() {
      await halt('SIGTERM');
      mkdirSync(dir, { recursive: true });
      child = await spawnRedis(port, dir);
    },
  };
}
