/**
 * `npm start` as a person runs it (dist/src/stack/main.js, so its components run from dist/
 * too), on free ports with a temporary data folder. Each component (the stack's three and every app of apps.json) is killed
 * like a crash in turn: the others keep answering their health path all along, the launcher
 * restarts the dead one after its 0.25 s backoff, and it answers again; SIGTERM then exits 0 and leaves
 * no process, the restarted ones included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { findProjectRoot, loadConfig } from '../../src/config';
import { childrenOf, commandLine, stopLauncher } from './process-tree';
import { compiled } from '../helpers/compiled';

const STARTUP_TIMEOUT_MS = 90_000;
/** How long a wait for the launcher's death and "is back" lines lasts before the test fails instead of hanging. */
const BACK_WITHIN_MS = 20_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * The components as the launcher labels them, the source of the entry file it starts (compiled)
 * and the path it waits on: the stack's three, then every app of apps.json (the two samples, and
 * any `npm run new-app` added: each gets a free port of its own, as the others do).
 */
const COMPONENTS: readonly { label: string; entry: string; port: string; path: string }[] = [
  { label: 'IdP', entry: 'src/idp-server/main.ts', port: 'IDP_PORT', path: '/healthz' },
  { label: 'control plane', entry: 'src/control-plane-server/main.ts', port: 'CONTROL_PLANE_PORT', path: '/healthz' },
  { label: 'edge authorizer', entry: 'src/sidecar/main.ts', port: 'EDGE_PORT', path: '/readyz' },
  ...loadConfig({}).apps.list.map((app) => ({ label: app.label, entry: `src/${app.entry}.ts`, port: app.vars.port, path: '/readyz' })),
];

/** Whether `url` answers 200; a slow answer on a busy machine still counts, a refusal does not. */
async function answersOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status === 200;
  } catch {
    return false;
  }
}

/** Whether `pid` is a process of this test's stack (pids are reused: a bare pid could be anyone's by now). */
function ours(pid: number, dataDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`OUTPOST_DATA_DIR=${dataDir}`);
  } catch {
    return false; // gone
  }
}

describe('npm start heals itself', () => {
  const root = findProjectRoot();
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let output = '';
  /** Every component process seen, first runs and restarts, for the clean-up of a failed test. */
  const seen = new Set<number>();

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-self-heal-'));
  });

  afterAll(async () => {
    await stopLauncher(launcher, exited, STOP_TIMEOUT_MS);
    for (const pid of seen) if (ours(pid, dataDir)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }, STOP_TIMEOUT_MS + 10_000);

  it('restarts each component killed in turn while the others answer, then stops cleanly', async () => {
    const ports = new Map<string, number>();
    for (const c of COMPONENTS) ports.set(c.port, await freePort());
    const url = (c: (typeof COMPONENTS)[number]) => `http://127.0.0.1:${ports.get(c.port)}${c.path}`;
    launcher = spawn(process.execPath, [compiled('src/stack/main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', OUTPOST_DATA_DIR: dataDir, ...Object.fromEntries([...ports].map(([k, v]) => [k, String(v)])) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = launcher;
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));

    /** Resolves with the first match of `pattern` in the launcher's output within `timeoutMs`; fails quoting it otherwise. */
    const said = (pattern: RegExp, what: string, timeoutMs: number) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the launcher said:\n${output}`)), timeoutMs);
        const check = () => {
          const m = pattern.exec(output);
          if (m) finish(m);
        };
        const gone = () => finish(new Error(`the launcher exited while waiting for ${what}:\n${output}`));
        function finish(result: RegExpExecArray | Error) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          child.off('exit', gone);
          if (result instanceof Error) reject(result);
          else resolve(result);
        }
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        child.once('exit', gone);
        check();
      });

    await said(/Outpost is up\.[\s\S]*Stop with Ctrl\+C\./, 'the banner', STARTUP_TIMEOUT_MS);
    const pids = new Map<string, number>();
    for (const pid of childrenOf(child.pid!)) {
      const c = COMPONENTS.find((component) => commandLine(pid).includes(compiled(component.entry)));
      if (c) pids.set(c.label, pid);
      seen.add(pid);
    }
    expect([...pids.keys()].sort()).toEqual(COMPONENTS.map((c) => c.label).sort());
    for (const c of COMPONENTS) expect(await answersOk(url(c))).toBe(true);

    for (const victim of COMPONENTS) {
      const others = COMPONENTS.filter((c) => c !== victim);
      // Probe the others from the kill until the victim is back, one after the other.
      let probing = true;
      const failures: string[] = [];
      let probes = 0;
      const probe = (async () => {
        while (probing) {
          for (const c of others) {
            probes += 1;
            if (!(await answersOk(url(c)))) failures.push(`${c.label} ${c.path} after ${victim.label} was killed`);
          }
          await new Promise((r) => setTimeout(r, 100)); // the sampling rate, not a wait for a state
        }
      })();
      process.kill(pids.get(victim.label)!, 'SIGKILL');
      const escaped = victim.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      // How soon it comes back is the launcher's own word (0.25 s of backoff, restart 1); the
      // waits' bound only turns a launcher that never restarts it into a failure, not a hang.
      await said(new RegExp(`${escaped} stopped \\(killed by SIGKILL; log [^)]+\\); restarting in 0\\.25 s \\(restart 1 of 5 this minute\\)`), `${victim.label}'s death line`, BACK_WITHIN_MS);
      const back = Number((await said(new RegExp(`${escaped} is back \\(restart 1, pid (\\d+)\\)`), `${victim.label} back`, BACK_WITHIN_MS))[1]);
      expect(await answersOk(url(victim))).toBe(true);
      probing = false;
      await probe;
      expect(failures).toEqual([]);
      expect(probes).toBeGreaterThan(others.length);
      expect(childrenOf(child.pid!)).toContain(back);
      pids.set(victim.label, back);
      seen.add(back);
    }
    expect(output).not.toContain('stays down');
    expect(childrenOf(child.pid!).sort()).toEqual([...pids.values()].sort());

    // SIGTERM: exit code 0, and no process left, first runs and restarts alike.
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), STOP_TIMEOUT_MS)))]);
    clearTimeout(timer);
    expect(code).toBe(0);
    // The launcher waited for its children; a reaped child's /proc entry is gone at once.
    expect([...seen].filter((pid) => ours(pid, dataDir)).map((pid) => `${pid} ${commandLine(pid).join(' ')}`)).toEqual([]);
  }, STARTUP_TIMEOUT_MS + COMPONENTS.length * (BACK_WITHIN_MS + 5_000) + STOP_TIMEOUT_MS);
});
