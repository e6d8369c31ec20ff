/**
 * `npm run new-app` in a copy of the checkout: what it refuses (and that a refusal writes
 * nothing), then an app scaffolded, built and started with the whole stack, answering an
 * allowed and a denied call with real tokens from the real IdP, and its own test passing, all in
 * a copy of the checkout (test/helpers/checkout-copy.ts), so the repository itself never changes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fetchToken } from '../../scripts/lib/fetch-token';
import { freePort } from '../../scripts/lib/free-port';
import { scaffoldApp } from '../../scripts/lib/scaffold-app';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { stackComponents } from '../../src/stack/components';
import { copyCheckout } from '../helpers/checkout-copy';
import { stopLauncher } from '../stack/process-tree';

/** The stack's own ports (IdP, control plane, edge), as the CLI passes them: an app never gets one. */
const STACK_PORTS = (() => {
  const config = loadConfig({});
  return stackComponents(config).filter((c) => !config.apps.list.some((app) => `${app.name}-app` === c.name)).map((c) => c.port);
})();
// The bounds below catch a hang, not slowness: each is several times what its step takes on a
// busy 2-core machine (a full suite beside two spinning processes took the build past 60 s).
/** Compiling the copy (tsc -b from nothing: ~9 s alone, ~25 s during a full suite). */
const BUILD_TIMEOUT_MS = 180_000;
/** From the launcher's start to its banner: six components, each awaited until ready. */
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
/** The scaffolded app's own test file under Jest, in the copy. */
const JEST_TIMEOUT_MS = 90_000;

/** Every file under `dir` with its size and content, to show a refusal changed nothing. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      if (entry.isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

/**
 * Runs the CLI compiled inside the copy (the checkout's dist/, copied: `findProjectRoot` finds the
 * copy), as `npm run new-app -- …` does after its build.
 */
function newApp(copy: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [join(copy, 'dist', 'scripts', 'new-app.js'), ...args], {
    cwd: copy,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run new-app', () => {
  let copy: string;
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let output = '';

  beforeAll(() => {
    copy = copyCheckout('outpost-new-app-', { dist: true });
    dataDir = join(copy, '.state');
  });

  afterAll(async () => {
    await stopLauncher(launcher, exited, STOP_TIMEOUT_MS);
    rmSync(copy, { recursive: true, force: true });
  }, STOP_TIMEOUT_MS + 5_000);

  it('prints its usage for --help and refuses an unknown option, changing nothing', () => {
    const before = snapshot(copy);
    const help = newApp(copy, '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run new-app -- \[options\] <name>\n/);
    expect(help.stdout).toContain('--port <number>');
    const unknown = newApp(copy, 'billing', '--colour', 'blue');
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain("error: unknown option '--colour'");
    expect(newApp(copy, 'billing', '--port', 'eighty').stderr).toContain("option '--port <number>' argument 'eighty' is invalid. a port number, 1–65535");
    const reserved = newApp(copy, 'sidecar');
    expect({ status: reserved.status, stdout: reserved.stdout, stderr: reserved.stderr.trim() }).toEqual({
      status: 1,
      stdout: '',
      stderr: expect.stringContaining('"sidecar" is not an app name: it is a part of the stack (the banner, the console and the logs name it); choose another name'),
    });
    expect(snapshot(copy)).toEqual(before);
  });

  it.each([
    ['a name that is not lowercase', 'Billing', {}, '"Billing" is not an app name: use lowercase letters, digits and dashes'],
    ['a listed app', 'todo', {}, 'apps.json already lists the todo app (its name, connection or policy is todo); choose another name'],
    ['a policy folder that exists', 'rebac', {}, 'policies/rebac already exists: new-app never overwrites'],
    ["a name whose variables are the stack's own", 'edge', {}, 'EDGE_PORT is a variable of the stack itself'],
    ['a port a listed app has', 'ledger', { port: 3001 }, 'port 3001 is taken by the rbac app; choose another with --port'],
    ["a port of the stack's", 'ledger', { port: 8585 }, 'port 8585 is taken by the IdP, the control plane or the edge; choose another with --port'],
    // Names the stack already means something by (issue 37): one of each kind.
    ['a dash at the end', 'x-', {}, '"x-" is not an app name: a dash must stand between two letters or digits (no "--", no dash at the end)'],
    ['two dashes in a row', 'a--b', {}, '"a--b" is not an app name: a dash must stand between two letters or digits'],
    ['a property every JavaScript object has', 'constructor', {}, '"constructor" is not an app name: every JavaScript object already has a property of that name'],
    ['the sidecar', 'sidecar', {}, '"sidecar" is not an app name: it is a part of the stack (the banner, the console and the logs name it); choose another name'],
    ['the console', 'console', {}, '"console" is not an app name: it is a part of the stack'],
    ['the stack', 'stack', {}, '"stack" is not an app name: it is a part of the stack'],
    ['a route of every component', 'metrics', {}, '"metrics" is not an app name: it is a route or a folder of the stack\'s own'],
    ['a folder of the data directory', 'logs', {}, '"logs" is not an app name: it is a route or a folder of the stack\'s own'],
    ['the build output', 'dist', {}, '"dist" is not an app name: it is a folder of the checkout'],
    ['node_modules, dashed', 'node-modules', {}, '"node-modules" is not an app name: it is a folder of the checkout'],
    ['a module beside the apps', 'app-health', {}, '"app-health" is not an app name: it is a module of src/apps/'],
  ])('refuses %s and writes nothing', (_label, name, extra, message) => {
    const before = snapshot(copy);
    expect(() => scaffoldApp({ root: copy, name, stackPorts: STACK_PORTS, ...extra })).toThrow(message);
    expect(snapshot(copy)).toEqual(before);
  });

  it('refuses to overwrite a file of the app, and writes nothing', () => {
    const stray = join(copy, 'test', 'apps', 'ledger-app.test.ts');
    cpSync(join(copy, 'test', 'apps', 'app-fixture.ts'), stray);
    try {
      const before = snapshot(copy);
      expect(() => scaffoldApp({ root: copy, name: 'ledger', stackPorts: STACK_PORTS })).toThrow('test/apps/ledger-app.test.ts already exists: new-app never overwrites');
      expect(snapshot(copy)).toEqual(before);
    } finally {
      rmSync(stray);
    }
  });

  it('scaffolds an app that the stack builds and starts, and that allows and denies with real tokens', async () => {
    const timings: string[] = [];
    const began = Date.now();
    const mark = (what: string) => timings.push(`${what} ${((Date.now() - began) / 1000).toFixed(1)} s`);
    const before = snapshot(copy);

    // The apps the copy lists already (the samples, and any the checkout has added): the new one
    // takes the port after their highest, and a name none of them has.
    const listed = loadConfig({}, copy).apps.list;
    const name = ['billing', 'billing-2', 'billing-3'].find((n) => !listed.some((app) => app.name === n) && !before.has(`policies/${n}/manifest.json`))!;
    const env = name.toUpperCase().replace(/-/g, '_');
    let port = Math.max(...listed.map((app) => app.port)) + 1;
    while (STACK_PORTS.includes(port)) port += 1;

    // Scaffold: the app's files, and one line (plus a comma) in apps.json; nothing else changes.
    const made = newApp(copy, name);
    expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });
    expect(made.stdout).toContain(`Created the ${name} app (port ${port}, which ${env}_PORT moves; policy ${name}):`);
    const after = snapshot(copy);
    const added = [...after.keys()].filter((file) => !before.has(file)).sort();
    expect(added).toEqual([
      `policies/${name}/${name}.cedar`,
      `policies/${name}/manifest.json`,
      `policies/${name}/schema.cedarschema`,
      `policies/${name}/tests/${name}.json`,
      `policies/${name}/tests/citadel-directory.json`,
      `policies/${name}/tests/directory.json`,
      `src/apps/${name}/create-${name}-app.ts`,
      `src/apps/${name}/index.ts`,
      `src/apps/${name}/main.ts`,
      `test/apps/${name}-app.test.ts`,
    ]);
    expect([...before.keys()].filter((file) => after.get(file) !== before.get(file))).toEqual(['apps.json']);
    const listLines = (text: string) => text.split('\n');
    const newLines = listLines(after.get('apps.json')!).filter((line) => !listLines(before.get('apps.json')!).includes(line));
    expect(newLines).toHaveLength(2); // the last app's line with its comma, and the new one
    expect(newLines[1]).toBe(
      `    {"name": "${name}", "label": "${name} app", "port": ${port}, "env": "${env}", "policy": "${name}", "entry": "apps/${name}/main", "connection": "${name}", "probe": "/items/outpost-probe"}`,
    );
    expect(newApp(copy, name).stderr).toContain(`apps.json already lists the ${name} app`);
    mark('scaffolded');

    // Build: the scaffold type-checks and compiles with the rest (npm start runs the same build).
    const build = spawnSync(process.execPath, [join(copy, 'scripts', 'build.cjs')], { cwd: copy, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
    expect({ status: build.status, output: `${build.stdout}${build.stderr}` }).toEqual({ status: 0, output: 'Compiling TypeScript (up to 20 s the first time, a few seconds after)…\n' });
    mark('built');

    // Start: the whole stack, as npm start after its build, every component on a free port.
    const config = loadConfig({}, copy);
    const ports: Record<string, string> = {};
    for (const name of ['IDP_PORT', 'CONTROL_PLANE_PORT', 'EDGE_PORT', ...config.apps.list.map((app) => app.vars.port)]) ports[name] = String(await freePort());
    launcher = spawn(process.execPath, [join(copy, 'dist', 'src', 'stack', 'main.js')], {
      cwd: copy,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', OUTPOST_DATA_DIR: dataDir, ...ports },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = launcher;
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no banner within ${START_TIMEOUT_MS} ms; the launcher said:\n${output}`)), START_TIMEOUT_MS);
      const check = () => output.includes('Stop with Ctrl+C.') && done();
      const gone = () => done(new Error(`the launcher exited before its banner:\n${output}`));
      function done(error?: Error) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', gone);
        if (error) reject(error);
        else resolve();
      }
      child.stdout!.on('data', check);
      child.once('exit', gone);
    });
    expect(output).toContain(`starting ${name} app … ready`);
    expect(output).toMatch(new RegExp(`\\n  ${name} app +http://localhost:${ports[`${env}_PORT`]}\\n`));
    // Every listed app's edge connection, in the list's order, the new one last.
    expect(output).toContain(`edge connections: sidecar `);
    expect(output).toMatch(new RegExp(`edge connections: sidecar \\S+, ${config.apps.list.map((app) => `${app.label} \\S+`).join(', ')}\n`));
    expect(config.apps.list.at(-1)!.name).toBe(name);
    mark('started');

    // Answers: Beth (a viewer) may read and may not delete; Rick (an admin) may delete.
    const seed = loadDirectorySeed(config.directorySeedFile);
    const idp = `http://127.0.0.1:${ports.IDP_PORT}`;
    const token = async (email: string) => (await fetchToken(idp, email, seed.demoPassword)).access_token;
    const item = `http://127.0.0.1:${ports[`${env}_PORT`]}/items/42`;
    const beth = await token('beth@the-smiths.com');
    const read = await fetch(item, { headers: { authorization: `Bearer ${beth}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ id: '42', read_by: seed.directory.users.find((u) => u.email === 'beth@the-smiths.com')!.id });
    mark('first allowed answer');
    const refused = await fetch(item, { method: 'DELETE', headers: { authorization: `Bearer ${beth}` } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ code: 'forbidden', message: `Forbidden by policy ${name}.delete` });
    mark('first denied answer');
    const removed = await fetch(item, { method: 'DELETE', headers: { authorization: `Bearer ${await token('rick@the-citadel.com')}` } });
    expect(removed.status).toBe(204);
    const anonymous = await fetch(item);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="outpost"/);

    child.kill('SIGTERM');
    expect({ code: await exited, output }).toEqual({ code: 0, output: expect.any(String) });
    mark('stopped');

    // The app's own test, as scaffolded, passes where it was written.
    const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--ci', `test/apps/${name}-app.test.ts`], { cwd: copy, encoding: 'utf8', timeout: JEST_TIMEOUT_MS });
    expect({ status: jest.status, stderr: jest.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/Tests: +3 passed, 3 total/) });
    mark("its own test passed");
    console.log(`new-app end to end: ${timings.join(', ')}`);
  }, BUILD_TIMEOUT_MS + START_TIMEOUT_MS + STOP_TIMEOUT_MS + JEST_TIMEOUT_MS);
});
