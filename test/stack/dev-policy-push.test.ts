/**
 * The policy folder reaches the app without an exec by hand, as a person runs the stack: the
 * launcher (dist/src/stack/main.js) in a copy of the checkout (its policies/ is edited; the
 * repository never changes), with one app (RBAC) on free ports.
 *
 * 1. `--watch-policies` (what `npm run dev` passes): a saved edit to policies/rbac is pushed as
 *    it is saved, and Morty's DELETE turns from 403 to 200 (push on change brings it to the edge).
 * 2. A plain start after the folder changed again while the stack was down: the start pushes it,
 *    the banner says so, and the answer follows the folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { readPolicyFolder } from '../../src/policy';
import { copyCheckout } from '../helpers/checkout-copy';
import { stopLauncher } from './process-tree';

/** Bounds on observable states (a busy two-core machine starts a stack slowly), never sleeps. */
const STARTUP_TIMEOUT_MS = 180_000;
const CHANGE_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
const PASSWORD = 'V@erySecre#t123!';

describe('a policy folder edit reaches the app: npm run dev as it is saved, npm start at the next start', () => {
  let copy: string;
  let launcher: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  let output = '';
  const ports: Record<string, string> = {};

  beforeAll(async () => {
    copy = copyCheckout('outpost-dev-push-', { dist: true });
    // One app: the RBAC app (the fewer processes, the sooner a busy machine starts them).
    const apps = JSON.parse(readFileSync(join(copy, 'apps.json'), 'utf8')) as { apps: { name: string }[] };
    writeFileSync(join(copy, 'apps.json'), JSON.stringify({ ...apps, apps: apps.apps.filter((a) => a.name === 'rbac') }));
    for (const port of ['IDP_PORT', 'CONTROL_PLANE_PORT', 'EDGE_PORT', 'RBAC_PORT']) ports[port] = String(await freePort());
  });
  afterAll(async () => {
    await stopLauncher(launcher, exited, STOP_TIMEOUT_MS);
    rmSync(copy, { recursive: true, force: true });
  }, STOP_TIMEOUT_MS + 10_000);

  function start(args: string[]): ChildProcess {
    output = '';
    const child = spawn(process.execPath, [join(copy, 'dist', 'src', 'stack', 'main.js'), ...args], {
      cwd: copy,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', OUTPOST_DATA_DIR: join(copy, '.data'), ...ports },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.once('exit', resolve));
    launcher = child;
    return child;
  }

  /** Resolves once the launcher's output holds `text`; fails quoting the output when it exits first or the bound passes. */
  const said = (child: ChildProcess, text: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms waiting for "${text}"; the launcher said:\n${output}`)), timeoutMs);
      const check = () => output.includes(text) && finish();
      const gone = () => finish(new Error(`the launcher exited while waiting for "${text}":\n${output}`));
      function finish(err?: Error) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', gone);
        if (err) reject(err);
        else resolve();
      }
      child.stdout!.on('data', check);
      child.once('exit', gone);
      check();
    });

  async function stop(child: ChildProcess): Promise<void> {
    child.kill('SIGTERM');
    await exited;
  }

  const base = (port: string) => `http://127.0.0.1:${ports[port]}`;
  async function mortyDeletes(): Promise<number> {
    const token = await fetch(`${base('IDP_PORT')}/api/v1/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'morty@the-citadel.com', password: PASSWORD }),
    });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const res = await fetch(`${base('RBAC_PORT')}/resource/mega-seed`, { method: 'DELETE', headers: { authorization: `Bearer ${accessToken}` } });
    return res.status;
  }
  /** Polls Morty's DELETE until it answers `status`, within `timeoutMs`; the last answer is in the failure. */
  async function untilMortyGets(status: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 0;
    while (Date.now() < deadline) {
      last = await mortyDeletes();
      if (last === status) return;
      await new Promise((r) => setTimeout(r, 100)); // the sampling rate, not a wait for a state
    }
    throw new Error(`Morty's DELETE still answers ${last}, not ${status}, ${timeoutMs} ms on; the launcher said:\n${output}`);
  }

  const folder = () => join(copy, 'policies', 'rbac');
  const save = (files: Readonly<Record<string, string>>) => {
    for (const [path, text] of Object.entries(files)) writeFileSync(join(folder(), path), text);
  };

  it(
    'pushes a saved folder under --watch-policies, and a folder changed while down at the next plain start, saying so',
    async () => {
      const shipped = readPolicyFolder(folder()).files;
      const dev = start(['--watch-policies']);
      await said(dev, 'Watching policies/rbac', STARTUP_TIMEOUT_MS);
      expect(await mortyDeletes()).toBe(403);

      save(letEditorsDelete(shipped));
      await said(dev, '[policies] pushed policies/rbac: changed since the image the edges hold', CHANGE_TIMEOUT_MS);
      await untilMortyGets(200, CHANGE_TIMEOUT_MS);
      await stop(dev);

      // Back to the shipped rule while the stack is down (the editors' rule file removed, the tests restored).
      rmSync(join(folder(), 'editors-delete.cedar'));
      save(shipped);
      const plain = start([]);
      await said(plain, 'Stop with Ctrl+C.', STARTUP_TIMEOUT_MS);
      expect(output).toMatch(/Policy folders \(policies\/ is the source of truth\):\n {2}pushed policies\/rbac: changed since the image the edges hold \(sha256:[0-9a-f]{12} → sha256:[0-9a-f]{12}\)/);
      expect(output).not.toContain('Watching policies/');
      await untilMortyGets(403, CHANGE_TIMEOUT_MS);
      await stop(plain);
    },
    2 * STARTUP_TIMEOUT_MS + 4 * CHANGE_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );
});
