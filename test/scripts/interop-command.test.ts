/**
 * `npm run interop` as a person runs it: the compiled script in a child process, port 0, a
 * temporary folder of its own (TMPDIR). It prints the ready line, answers AuthZEN, and on
 * SIGTERM stops with status 0 leaving the folder empty; it refuses an unknown scenario, and
 * any scenario not available yet, with one line and status 1, having made nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INTEROP_SCENARIOS } from '../../src/interop';

const root = join(__dirname, '..', '..');
const entry = join(root, 'dist', 'scripts', 'interop.js');
const MORTY = 'CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-interop-cli-'));
  dirs.push(dir);
  return dir;
};

/** The script in its own process, its temporary files under `tmp`. */
function start(args: readonly string[], tmp: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'DATABASE_URL' && key !== 'REDIS_URL'));
  const child = spawn(process.execPath, [entry, ...args], { cwd: root, env: { ...env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /^AuthZEN PDP ready at (http:\/\/localhost:\d+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((status) => reject(new Error(`exited with ${status} before it was ready: ${stderr}`)));
  });
  ready.catch(() => undefined); // a run expected to refuse is never ready, and nobody waits for it
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

beforeAll(() => {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}, 180_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run interop', () => {
  it('todo: prints the ready line, decides, and on SIGTERM exits 0 leaving nothing behind', async () => {
    const tmp = freshDir();
    const run = start(['todo', '--port', '0'], tmp);
    const url = await run.ready;
    expect(readdirSync(tmp)).toHaveLength(1); // its data folder, while it runs
    const res = await fetch(`${url}/access/v1/evaluation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: { type: 'user', id: MORTY }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ decision: true });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    expect(run.output().stderr).toBe('');
  }, 60_000);

  it('refuses an unknown scenario and every scenario not available yet: one line, status 1, nothing made', async () => {
    const refusals = [['nope', 'interop: unknown scenario "nope"; one of: todo, search, certification, gateway']];
    for (const s of INTEROP_SCENARIOS.filter((x) => x.unavailable !== undefined)) {
      refusals.push([s.name, `interop: the ${s.name} scenario is not available yet: ${s.unavailable}`]);
    }
    for (const [name, message] of refusals) {
      const tmp = freshDir();
      const run = start([name!], tmp);
      expect(await run.exited).toBe(1);
      expect(run.output()).toEqual({ stdout: '', stderr: `${message}\n` });
      expect(readdirSync(tmp)).toEqual([]);
    }
  }, 60_000);
});
