/**
 * `npm run new-app` keeps the suite green (issue 35): two apps scaffolded into a copy of the
 * checkout (test/helpers/checkout-copy.ts, as test/scripts/new-app.test.ts makes one), then, in
 * that copy, the scaffolded files type-checked under the project's tsconfig and the test files
 * that read the app list, the policies or the ports run with Jest, as `npm test` would run them
 * there. The repository itself never changes.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { copyCheckout } from '../helpers/checkout-copy';

/** The two apps: one plain name, one with a dash (its variables `LEDGER_API_…`, its factory `createLedgerApiApp`). */
const WANTED = ['notes', 'ledger-api'];

/**
 * The test files run in the copy: each reads what a new app changes, and none starts a whole
 * stack (those take minutes each; they are named below). A file added to the suite that reads
 * apps.json, policies/ or the apps' ports belongs here when it runs within seconds.
 */
const READERS = [
  // policies/: every folder's own tests, and its demo matrix over every action its schema declares.
  'test/policy/shipped-policy-tests.test.ts',
  // apps.json and policies/: the seed gives every app a labelled connection and pushes every folder (SQLite and PostgreSQL).
  'test/control-plane/seed-control-plane.test.ts',
  // apps.json and policies/: a push beside one image of every other folder, under the tenant's image quota.
  'test/control-plane/admin-policy-routes.test.ts',
  // apps.json: the list as loadConfig reads it, the samples first, their documented variables.
  'test/config/app-list.test.ts',
  // apps.json: the launcher's components, what each waits for, the banner's connections.
  'test/stack/banner.test.ts',
  // apps.json: the cluster's components, one per app.
  'test/stack/cluster-components.test.ts',
  // src/apps/: what an app may import and read (layers, no process.env outside src/config, no storage of its own).
  'test/architecture/layers.test.ts',
  'test/architecture/environment-reads.test.ts',
  'test/architecture/sample-app-storage.test.ts',
];
// Read the list too, and are left to the full run because each starts whole stacks for minutes:
// test/scripts/new-app.test.ts (a third app, the stack started with it), test/stack/stack-self-heal.test.ts
// (kills every component of the list in turn), test/stack/refused-edges.test.ts, test/stack/cluster-launcher.test.ts,
// test/docs/readme-commands.test.ts and test/docs/guide-commands.test.ts.

/** Scaffolding twice, the type-check, and Jest over the files above with the two apps' own tests, on a busy 2-core machine. */
const SCAFFOLD_TIMEOUT_MS = 60_000;
const TSC_TIMEOUT_MS = 180_000;
const JEST_TIMEOUT_MS = 600_000;

describe('npm run new-app, twice, in a copy of the checkout', () => {
  let copy: string;
  beforeAll(() => {
    copy = copyCheckout('outpost-new-apps-', { dist: true });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it(
    'leaves every test that reads the apps, the policies or the ports green, and its files type-check',
    () => {
      const timings: string[] = [];
      const began = Date.now();
      const mark = (what: string) => timings.push(`${what} ${((Date.now() - began) / 1000).toFixed(1)} s`);

      // Two names the copy does not list yet (a checkout may have apps of its own).
      const listed = new Set(loadConfig({}, copy).apps.list.map((app) => app.name));
      const names = WANTED.map((name) => (listed.has(name) ? `${name}-2` : name));
      const before = loadConfig({}, copy).apps.list.length;
      for (const name of names) {
        const made = spawnSync(process.execPath, [join(copy, 'dist', 'scripts', 'new-app.js'), name], {
          cwd: copy,
          env: { PATH: process.env.PATH ?? '' },
          encoding: 'utf8',
          timeout: SCAFFOLD_TIMEOUT_MS,
        });
        expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });
        expect(made.stdout).toContain(`Created the ${name} app`);
      }
      const apps = loadConfig({}, copy).apps.list;
      expect(apps.slice(before).map((app) => app.name)).toEqual(names);
      mark('scaffolded');

      // The scaffolded sources and tests, and what they import, under the project's compiler options.
      writeFileSync(
        join(copy, 'tsconfig.new-apps.json'),
        JSON.stringify({ extends: './tsconfig.json', include: names.flatMap((name) => [`src/apps/${name}`, `test/apps/${name}-app.test.ts`]) }),
      );
      const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.new-apps.json', '--noEmit'], {
        cwd: copy,
        encoding: 'utf8',
        timeout: TSC_TIMEOUT_MS,
      });
      expect({ status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` }).toEqual({ status: 0, output: '' });
      mark('type-checked');

      const files = [...READERS, ...names.map((name) => `test/apps/${name}-app.test.ts`)];
      // Two workers: this file already shares the machine with the rest of the suite.
      const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--ci', '--maxWorkers=2', ...files], { cwd: copy, encoding: 'utf8', timeout: JEST_TIMEOUT_MS });
      const failures = jest.stderr.split('\n').filter((line) => /^FAIL |^  ● (?!Console$)/.test(line));
      expect({ status: jest.status, failures, suites: /Test Suites: .*/.exec(jest.stderr)?.[0] }).toEqual({
        status: 0,
        failures: [],
        suites: `Test Suites: ${files.length} passed, ${files.length} total`,
      });
      mark('their tests passed');
      console.log(`two apps, the suite's readers green: ${timings.join(', ')}`);
    },
    SCAFFOLD_TIMEOUT_MS * 2 + TSC_TIMEOUT_MS + JEST_TIMEOUT_MS,
  );
});
