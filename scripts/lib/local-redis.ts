import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** How long a fresh redis-server may take to answer. */
export const REDIS_START_TIMEOUT_MS = 10_000;

/** A throwaway redis-server on loopback: no persistence, its own temporary directory. */
export interface LocalRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The server's pid while it runs (for a benchmark's CPU accounting). */
  readonly pid: number | undefined;
  /** SIGTERM, waits for the exit, deletes the directory. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), waits for the exit; the directory is kept for {@link restart}. */
  kill(): Promise<void>;
  /** Stops the server if it runs and starts a new, empty one on the same port. */
  restart(): Promise<void>;
}


/**
 * The pid of the redis-server answering on `port` (`INFO server`), or undefined. Comparing
 * it with our child's tells our server from another one that already held the port.
 */
function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (pid: number | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(500, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      const match = /\r\nprocess_id:(\d+)\r\n/.exec(answer);
      if (match) done(Number(match[1]));
      else if (answer.startsWith('-') || answer.length > 64 * 1024) done(undefined);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns redis-server and resolves once it answers on `port`, or rejects with what it printed. */
async function spawnRedis(binary: string, port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
    if (child.pid !== undefined && (await serverPid(port)) === child.pid) return child;
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
 * port is taken; `binary` defaults to `redis-server` on the PATH.
 */
export async function startLocalRedis(options: { port?: number; binary?: string } = {}): Promise<LocalRedis> {
  const binary = options.binary ?? 'redis-server';
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'outpost-redis-'));
  let child: ChildProcess | undefined;
  try {
    child = await spawnRedis(binary, port, dir);
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
    get pid() {
      return child?.pid;
    },
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => halt('SIGKILL'),
    async restart() {
      await halt('SIGTERM');
      mkdirSync(dir, { recursive: true });
      child = await spawnRedis(binary, port, dir);
    },
  };
}
