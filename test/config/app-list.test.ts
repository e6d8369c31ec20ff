import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, findApp, findProjectRoot, formatAppList, loadConfig, readAppList, type AppListEntry } from '../../src/config';
import { APPS_GROUP, ENV_GROUPS } from '../../src/config/env-schema';

const billing: AppListEntry = {
  name: 'billing',
  label: 'billing app',
  port: 3003,
  env: 'BILLING',
  policy: 'billing',
  entry: 'apps/billing/main',
  connection: 'billing',
  probe: '/invoices/outpost-probe',
};
// (These tests write their own lists, so an app `npm run new-app` added to the repository's changes nothing here.)

describe('apps.json', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'outpost-app-list-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A project root whose apps.json lists the repository's two sample apps, then `extra`. */
  const withApps = (...extra: unknown[]): string => {
    const list = JSON.parse(readFileSync(join(findProjectRoot(), 'apps.json'), 'utf8')) as { apps: { name: string }[] };
    const samples = list.apps.filter((app) => app.name === 'rbac' || app.name === 'todo');
    writeFileSync(join(root, 'apps.json'), JSON.stringify({ apps: [...samples, ...extra] }));
    return root;
  };

  /** The problems loadConfig reports for `env` with the list of `projectRoot`. */
  const problemsOf = (env: NodeJS.ProcessEnv, projectRoot: string): readonly string[] => {
    try {
      loadConfig(env, projectRoot);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('lists the two sample apps first (npm run new-app adds after them), whose documented variables keep working', () => {
    const config = loadConfig({});
    expect(config.apps.list.slice(0, 2).map((a) => [a.name, a.label, a.port, a.url, a.entry, a.policy, a.connection])).toEqual([
      ['rbac', 'RBAC app', 3001, 'http://localhost:3001', 'apps/rbac/main', 'rbac', 'rbac'],
      ['todo', 'todo app', 3002, 'http://localhost:3002', 'apps/todo/main', 'todo', 'todo'],
    ]);
    const moved = loadConfig({ RBAC_PORT: '3101', APP_URL: 'https://rbac.example/', TODO_PORT: '3102', TODO_CONNECTION_ID: 'c', TODO_CONNECTION_SECRET: 's' });
    expect(findApp(moved, 'rbac')).toMatchObject({ port: 3101, url: 'https://rbac.example', vars: { port: 'RBAC_PORT', url: 'APP_URL' } });
    expect(moved.apps.rbacUrl).toBe('https://rbac.example');
    expect(findApp(moved, 'todo')).toMatchObject({ port: 3102, url: 'http://localhost:3102', connectionId: 'c', connectionSecret: 's' });
  });

  it('has the defaults docs/reference/configuration.md documents for the sample apps (the table is generated from env-schema.ts)', () => {
    const documented = ENV_GROUPS[APPS_GROUP];
    for (const app of loadConfig({}).apps.list.filter((a) => a.name === 'rbac' || a.name === 'todo')) {
      const portVar = documented[app.vars.port as keyof typeof documented];
      expect(portVar.schema.parse(undefined)).toBe(app.port);
      for (const name of [app.vars.url, app.vars.connectionId, app.vars.connectionSecret]) expect(Object.keys(documented)).toContain(name);
    }
  });

  it("gives an added app its own variables, without a line of configuration code", () => {
    const projectRoot = withApps(billing);
    const config = loadConfig({ BILLING_PORT: '4003', BILLING_CONNECTION_ID: 'conn', BILLING_CONNECTION_SECRET: 'secret' }, projectRoot);
    expect(findApp(config, 'billing')).toEqual({
      ...billing,
      vars: { port: 'BILLING_PORT', url: 'BILLING_URL', connectionId: 'BILLING_CONNECTION_ID', connectionSecret: 'BILLING_CONNECTION_SECRET' },
      port: 4003,
      url: 'http://localhost:4003',
      connectionId: 'conn',
      connectionSecret: 'secret',
    });
    expect(findApp(loadConfig({ BILLING_URL: 'https://billing.example/' }, projectRoot), 'billing')).toMatchObject({ port: 3003, url: 'https://billing.example' });
    expect(problemsOf({ BILLING_PORT: 'seventy', BILLING_URL: 'ftp://x', IDP_PORT: 'x' }, projectRoot)).toEqual([
      expect.stringMatching(/^IDP_PORT: /),
      expect.stringMatching(/^BILLING_PORT: /),
      expect.stringMatching(/^BILLING_URL: /),
    ]);
    expect(() => findApp(config, 'payroll')).toThrow('no app "payroll" in apps.json (listed: rbac, todo, billing)');
  });

  it.each([
    ['a name that is not lowercase', { ...billing, name: 'Billing' }, /apps\.2\.name: must be lowercase letters/],
    ['a field it does not know', { ...billing, colour: 'blue' }, /apps\.2: Unrecognized key: "colour"/],
    ['an entry outside src/', { ...billing, entry: '../evil/main' }, /apps\.2\.entry: must be a module path under src\//],
    ['a policy that is no policy name', { ...billing, policy: 'Billing' }, /apps\.2\.policy: must be a policy name/],
    ['a name already listed', { ...billing, name: 'todo' }, /app "todo" and app "todo" share the name todo/],
    ['a port already listed', { ...billing, port: 3001 }, /app "billing" and app "rbac" share the port 3001/],
    ['a connection already listed', { ...billing, connection: 'rbac' }, /app "billing" and app "rbac" share the connection rbac/],
    ['an env prefix already listed', { ...billing, env: 'TODO' }, /app "billing" and app "todo" share the variable TODO_PORT/],
    ["a variable of the stack's own", { ...billing, env: 'EDGE' }, /app "billing": EDGE_PORT is a variable of the stack itself; choose another env/],
  ])('refuses %s, naming the file', (_label, entry, problem) => {
    const projectRoot = withApps(entry);
    const problems = problemsOf({}, projectRoot);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith(`${join(projectRoot, 'apps.json')}: `))).toBe(true);
    expect(problems.join('\n')).toMatch(problem);
  });

  it('is kept one app a line, as npm run new-app rewrites it (so adding an app changes no other line)', () => {
    const file = join(findProjectRoot(), 'apps.json');
    const text = readFileSync(file, 'utf8');
    const { $comment } = JSON.parse(text) as { $comment?: string };
    expect(text).toBe(formatAppList($comment, readAppList(findProjectRoot()).apps));
    const added = formatAppList($comment, [...readAppList(findProjectRoot()).apps, billing]).split('\n');
    const before = text.split('\n');
    const lastApp = before.filter((line) => line.startsWith('    {')).at(-1)!;
    // The line before gains its comma; the new app is one line.
    expect(added.filter((line) => !before.includes(line))).toEqual([`${lastApp},`, expect.stringMatching(/^ {4}\{"name": "billing", "label": "billing app", /)]);
    expect(added).toHaveLength(before.length + 1);
  });

  it('says when the list is missing or not JSON, with the environment\'s problems', () => {
    expect(readAppList(root).problems).toEqual([`${join(root, 'apps.json')}: does not exist (it lists the apps the stack runs)`]);
    writeFileSync(join(root, 'apps.json'), '{"apps": [');
    expect(problemsOf({ LOG_LEVEL: 'loud' }, root)).toEqual([`${join(root, 'apps.json')}: not valid JSON (ends too early)`, expect.stringMatching(/^LOG_LEVEL: /)]);
  });
});
