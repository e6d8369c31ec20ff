import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';

/** How long a fresh server may take to accept connections before we give up. */
const READY_TIMEOUT_MS = 20_000;
/** How long a fast shutdown may take before the server is killed. */
const STOP_TIMEOUT_MS = 10_000;
/** The superuser initdb creates; the URL names it. */
const USER = 'outpost';
/** The database every instance starts with. */
const DATABASE = 'outpost';

/** A running throwaway PostgreSQL; `stop()` it when done. */
export interface LocalPostgres {
  /** `postgres://outpost@127.0.0.1:<port>/outpost`, trust authentication, no password. */
  readonly url: string;
  readonly port: number;
  /** The temporary folder holding the cluster (`data/`) and the server's socket. */
  readonly dir: string;
  /** `postgres://…/<name>` of another database on the same server. */
  urlFor(database: string): string;
  /** Stops the server (fast shutdown) and removes the folder. Idempotent. */
  stop(): Promise<void>;
  /**
   * Stops the server and keeps the folder: `immediate` is a crash (SIGQUIT, no checkpoint,
   * recovery at the next start), otherwise a fast shutdown that ends every session (57P01).
   */
  shutdown(options?: { readonly immediate?: boolean }): Promise<void>;
  /** Starts the server again on the same port and folder, after `shutdown()`. */
  start(): Promise<void>;
  /** `shutdown()` then `start()`. */
  restart(options?: { readonly immediate?: boolean }): Promise<void>;
}

export interface LocalPostgresOptions {
  /** Folder for the cluster; a new temporary folder when absent (removed by `stop()` either way). */
  readonly dir?: string;
  /** Loopback port; a free one when absent. */
  readonly port?: number;
  /**
   * Keep PostgreSQL's durability settings (fsync, full-page writes, synchronous commit: its
   * defaults), so an acknowledged write survives a crash of the server or the machine. Off by
   * default: tests and benchmarks want speed, and with them off a `kill -9` of the server lost
   * 1 of 117 acknowledged writes (docs/guide/06-more-than-one-node.md).
   */
  readonly durable?: boolean;
}

/** What a server's durability means for the writes it acknowledges: said at every start. */
export function durabilityLine(durable: boolean): string {
  return durable
    ? 'durable: fsync, full-page writes and synchronous commit on (PostgreSQL defaults)'
    : 'NOT durable: fsync, full-page writes and synchronous commit off for speed; a crash can lose acknowledged writes (--durable keeps them)';
}

/** Settings that trade crash safety for speed; a durable server runs without them. */
const FAST_UNSAFE = ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off'];

const INSTALL_HINT =
  'PostgreSQL server binaries (initdb, postgres) not found: install them with `apt-get install -y postgresql` ' +
  '(Debian; tests start a throwaway server of their own, no service needs to run)';

function hasServer(bindir: string): boolean {
  return existsSync(join(bindir, 'initdb')) && existsSync(join(bindir, 'postgres'));
}

/** Where {@link findPostgresBindir} looks; the defaults are Debian's layout and the PATH. */
export interface PostgresSearchPlaces {
  readonly pgConfig: string;
  readonly libRoot: string;
  readonly path: string;
}

const DEBIAN: PostgresSearchPlaces = { pgConfig: 'pg_config', libRoot: '/usr/lib/postgresql', path: process.env.PATH ?? '' };

/**
 * The folder holding `initdb` and `postgres`: `pg_config --bindir`, then the newest
 * `/usr/lib/postgresql/N/bin`, then the PATH. Throws what to install when none has them.
 */
export function findPostgresBindir(places: PostgresSearchPlaces = DEBIAN): string {
  const fromConfig = spawnSync(places.pgConfig, ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0 && hasServer(fromConfig.stdout.trim())) return fromConfig.stdout.trim();
  if (existsSync(places.libRoot)) {
    const versions = readdirSync(places.libRoot)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) if (hasServer(join(places.libRoot, version, 'bin'))) return join(places.libRoot, version, 'bin');
  }
  for (const dir of places.path.split(':')) if (dir !== '' && hasServer(dir)) return dir;
  throw new Error(INSTALL_HINT);
}

/**
 * initdb and postgres refuse to run as root. As root, both run as Debian's `postgres`
 * system user (or `nobody`), and the folder is handed to that user.
 */
function serverIdentity(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root, and neither the postgres nor the nobody user exists to run PostgreSQL as');
}

/** The environment minus libpq's PG* variables, which would point our tools elsewhere. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LANG: 'C', LC_ALL: 'C' };
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PG') && !name.startsWith('LC_') && name !== 'LANG') env[name] = value;
  return env;
}


function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls with a real connection until the server answers, it exits, or the time is up. */
async function waitUntilReady(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited while starting (${child.exitCode ?? child.signalCode}):\n${log()}`);
    }
    const client = new Client({ host: '127.0.0.1', port, user: USER, database: 'postgres', connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${READY_TIMEOUT_MS} ms:\n${log()}`);
    await sleep(50);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts a throwaway PostgreSQL server for tests and benchmarks: a fresh cluster in a
 * temporary folder (`initdb`, trust authentication, user `outpost`, C locale), served by a
 * child process on a free loopback port with durability off (fsync, full-page writes,
 * synchronous commit) for speed unless `durable`, and a database `outpost`. Never a system service. Needs
 * Debian's `postgresql` package; without it the error says what to install.
 */
export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const bindir = findPostgresBindir();
  const identity = serverIdentity();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'outpost-pg-'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (identity) chownSync(dir, identity.uid, identity.gid);
  const dataDir = join(dir, 'data');
  const spawnAs = identity ? { uid: identity.uid, gid: identity.gid } : {};
  const env = cleanEnv();

  const init = spawnSync(join(bindir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', USER, '-E', 'UTF8', '--locale=C', ...(options.durable ? [] : ['--no-sync']), '--no-instructions'], {
    encoding: 'utf8',
    env,
    ...spawnAs,
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status ?? init.signal ?? init.error?.message}):\n${init.stderr}${init.stdout}`);
  }

  let port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;
  let output = '';

  // A test run that dies without stop() must not leave a server behind.
  const onExit = () => child?.kill('SIGQUIT');

  async function start(): Promise<void> {
    if (child) throw new Error('this PostgreSQL is already running');
    output = '';
    const server = spawn(
      join(bindir, 'postgres'),
      ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', ...(options.durable ? [] : FAST_UNSAFE), '-c', 'shared_buffers=32MB'],
      { env, stdio: ['ignore', 'pipe', 'pipe'], ...spawnAs },
    );
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8_192);
    };
    server.stdout!.on('data', keep);
    server.stderr!.on('data', keep);
    child = server;
    process.once('exit', onExit);
    await waitUntilReady(port, server, () => output);
  }

  async function shutdown(opts: { readonly immediate?: boolean } = {}): Promise<void> {
    const server = child;
    child = undefined;
    if (!server) return;
    process.removeListener('exit', onExit);
    server.kill(opts.immediate ? 'SIGQUIT' : 'SIGINT');
    const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited(server);
    clearTimeout(timer);
  }

  try {
    // A port picked by us can be taken before postgres binds it: try another, a few times.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await start();
        break;
      } catch (err) {
        await shutdown({ immediate: true });
        if (options.port !== undefined || attempt === 3) throw err;
        port = await freePort();
      }
    }
    const admin = new Client({ host: '127.0.0.1', port, user: USER, database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const urlFor = (database: string) => `postgres://${USER}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let stopped = false;
  return {
    url: urlFor(DATABASE),
    port,
    dir,
    urlFor,
    async stop() {
      if (stopped) return;
      stopped = true;
      await shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
    shutdown,
    start,
    async restart(opts) {
      await shutdown(opts);
      await start();
    },
  };
}
