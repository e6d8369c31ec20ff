/**
 * The docs run in a copy of the checkout as a clone has it (test/helpers/checkout-copy.ts,
 * `withoutUntrackedApps`): an app a reader scaffolded by following the README or the guide, and
 * has not committed, is left out, so the documents' own `npm run new-app` finds its name free. A
 * committed app stays, and so does every other new file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { formatAppList, type AppListEntry } from '../../src/config';
import { copyCheckout } from '../helpers/checkout-copy';

const app = (name: string, port: number): AppListEntry => ({
  name, label: `${name} app`, port, env: name.toUpperCase(), policy: name, entry: `apps/${name}/main`, connection: name, probe: '/items/outpost-probe',
});
/** An app's files as new-app writes them (a few of them: the ones the copy looks at). */
const appFiles = (name: string) => [`src/apps/${name}/main.ts`, `policies/${name}/manifest.json`, `test/apps/${name}-app.test.ts`];

describe('a copy of the checkout without the apps git does not track', () => {
  let root: string;
  const copies: string[] = [];
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'outpost-fake-checkout-'));
    const write = (file: string, text = '// x\n') => {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    const git = (...args: string[]) => {
      const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: root, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
    };
    // A clone: the samples and an app of the project's own, committed.
    write('apps.json', formatAppList('the list', [app('rbac', 3001), app('todo', 3002), app('ledger', 3005)]));
    for (const name of ['rbac', 'todo', 'ledger']) appFiles(name).forEach((file) => write(file));
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'a clone');
    // Then the README's `npm run new-app -- notes --port 3010`, not committed, and a new module.
    write('apps.json', formatAppList('the list', [app('rbac', 3001), app('todo', 3002), app('ledger', 3005), app('notes', 3010)]));
    appFiles('notes').forEach((file) => write(file));
    write('src/new-module.ts');
  });
  afterAll(() => {
    for (const dir of [root, ...copies]) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves out the uncommitted app, its line and its files, and keeps the rest', () => {
    const copy = copyCheckout('outpost-copy-test-', { root, withoutUntrackedApps: true });
    copies.push(copy);
    expect(readFileSync(join(copy, 'apps.json'), 'utf8')).toBe(formatAppList('the list', [app('rbac', 3001), app('todo', 3002), app('ledger', 3005)]));
    for (const file of appFiles('notes')) expect({ file, there: existsSync(join(copy, file)) }).toEqual({ file, there: false });
    expect(existsSync(join(copy, 'src', 'apps', 'notes'))).toBe(false);
    for (const file of [...appFiles('ledger'), 'src/new-module.ts']) expect({ file, there: existsSync(join(copy, file)) }).toEqual({ file, there: true });
  });

  it('copies everything as it is without the option', () => {
    const copy = copyCheckout('outpost-copy-test-', { root });
    copies.push(copy);
    expect(readFileSync(join(copy, 'apps.json'), 'utf8')).toBe(readFileSync(join(root, 'apps.json'), 'utf8'));
    for (const file of appFiles('notes')) expect(existsSync(join(copy, file))).toBe(true);
  });
});
