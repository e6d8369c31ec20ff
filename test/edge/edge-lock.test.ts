/**
 * One edge per data directory, with a lock the kernel releases when its holder dies however it
 * dies: SIGKILLed (reaped or still a zombie), or in a container where the edge is PID 1 and a
 * stale lock file names that very pid. A second live edge on the directory is still refused.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEdgeRuntime, type EdgeRuntime } from '../../src/edge';
import { silentLogger } from '../../src/observability';
import { compiled } from '../helpers/compiled';
import { removeDir, tempDir } from './edge-kit';

/** The lock holder, compiled to plain JavaScript by test/build-once.js. */
const HOLDER = compiled('test/edge/fixtures/hold-edge-lock.ts');

let dir: string;
const children: ChildProcess[] = [];
const runtimes: EdgeRuntime[] = [];

beforeEach(() => {
  dir = tempDir();
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
  removeDir(dir);
});

function runtime(): EdgeRuntime {
  const HOUR = 3_600_000;
  const created = createEdgeRuntime({
    relayUrl: 'http://127.0.0.1:9',
    connectionId: 'conn',
    connectionSecret: 'secret',
    dataDir: dir,
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: HOUR,
    logger: silentLogger(),
  });
  runtimes.push(created);
  return created;
}

/** A child process running an edge on `dir`, once it says it started (and holds the lock). */
async function holder(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [HOLDER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before it started: ${err}`)));
  });
  return child;
}

/** The state letter of `/proc/<pid>/stat` (`Z`: a zombie, dead but not yet reaped), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is entirely dead but not yet reaped. Node runs several threads, and the main
 * one can show `Z` while the others are still exiting (and still hold the process's files);
 * once they are gone the zombie is the thread group's only thread.
 */
function isUnreapedCorpse(pid: number): boolean {
  if (processState(pid) !== 'Z') return false;
  try {
    return readdirSync(`/proc/${pid}/task`).length === 1;
  } catch {
    return false;
  }
}

describe('the edge lock', () => {
  it('refuses a second live edge on the same directory, naming the directory', async () => {
    await holder();
    await expect(runtime().start()).rejects.toThrow(`another edge is using ${dir} (`);
  });

  it('is free at once after its holder is SIGKILLed and reaped', async () => {
    const child = await holder();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await expect(runtime().start()).resolves.toBeUndefined();
  });

  it('is free at once after its holder is SIGKILLed, while the dead holder is still a zombie', async () => {
    const child = await holder();
    const pid = child.pid!;
    child.kill('SIGKILL');
    // Node reaps its children on the event loop; this loop never yields, so the dead child stays a zombie.
    const deadline = Date.now() + 10_000;
    while (!isUnreapedCorpse(pid) && Date.now() < deadline);
    expect(isUnreapedCorpse(pid)).toBe(true);
    // The next edge starts while the dead holder is still unreaped.
    const started = runtime().start();
    expect(processState(pid)).toBe('Z');
    await expect(started).resolves.toBeUndefined();
  });

  it('does not block an edge running as PID 1 (a container) on a stale edge.lock that names pid 1', () => {
    writeFileSync(join(dir, 'edge.lock'), '1\n');
    const run = (extra: readonly string[]) =>
      spawnSync('unshare', [...extra, '--pid', '--fork', '--mount-proc', process.execPath, HOLDER, dir, 'once'], { encoding: 'utf8', timeout: 60_000 });
    let result = run([]);
    // Without CAP_SYS_ADMIN (an unprivileged container), a user namespace gives the same PID 1.
    if (result.status !== 0 && !result.stdout.includes('started') && /Operation not permitted/.test(result.stderr)) result = run(['--user', '--map-root-user']);
    expect({ stdout: result.stdout, stderr: result.stderr, status: result.status }).toEqual({ stdout: 'started 1\n', stderr: '', status: 0 });
  });
});
