/**
 * Adopting the packages outside the repository, for real: `npm pack`, installed into a fresh
 * Express 5 app in a temporary folder (nothing else of Outpost installed), running the packages'
 * README code against Outpost's IdP — with Outpost's sidecar edge as the AuthZEN PDP, with a
 * real Cerbos (its npm package, the rbac policy in Cerbos's terms), and with Cedar in-process
 * over Outpost's `policies/rbac` and the demo directory.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ID_TOKEN_MESSAGE } from '@outpost/express-authz';
import { loadDirectorySeed } from '../../src/directory';
import { startCerbos, type CerbosServer } from '../../scripts/bench/lib/cerbos-server';
import { freePort } from '../../scripts/lib/free-port';
import { ROOT } from '../helpers/compiled';
import { startStack, type Stack } from '../integration/stack-fixture';

const run = promisify(execFile);
/** A package README's ```js blocks, in order. */
const jsBlocks = (name: string) => [...readFileSync(join(ROOT, 'packages', name, 'README.md'), 'utf8').matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
/** The app, then the Cerbos variant of its `const pdp` line; the Cedar package's own `const pdp` lines. */
const [APP_JS, CERBOS_PDP_JS] = jsBlocks('express-authz');
const [CEDAR_PDP_JS] = jsBlocks('cedar-authorizer');

let stack: Stack;
let cerbos: CerbosServer;
let appDir: string;
let tokens: { rick: string; morty: string; rickId: string };
const children: ChildProcess[] = [];

beforeAll(async () => {
  [stack, cerbos] = await Promise.all([startStack(), startCerbos()]);
  appDir = mkdtempSync(join(tmpdir(), 'outpost-adopter-'));
  // prepack compiles the package; the tarball is what `npm publish` would upload.
  await run('npm', ['pack', '-w', '@outpost/express-authz', '-w', '@outpost/cedar-authorizer', '--pack-destination', appDir, '--silent'], { cwd: ROOT, timeout: 180_000 });
  const tarball = (name: string) => `file:./${readdirSync(appDir).find((f) => f.startsWith(`outpost-${name}-`) && f.endsWith('.tgz'))!}`;
  const dependencies = { express: '^5.1.0', '@outpost/express-authz': tarball('express-authz'), '@outpost/cedar-authorizer': tarball('cedar-authorizer') };
  writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'adopter', private: true, dependencies }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent'], { cwd: appDir, timeout: 180_000 });
  // The user store the Cerbos variant reads roles from: the demo directory's users, by id.
  const { users } = loadDirectorySeed(join(ROOT, 'data', 'citadel-directory.json')).directory;
  writeFileSync(join(appDir, 'roles.json'), JSON.stringify(Object.fromEntries(users.map((u) => [u.id, u.roles]))));
  writeFileSync(join(appDir, 'app.js'), APP_JS!);
  writeFileSync(join(appDir, 'app-cerbos.js'), APP_JS!.replace(/^const pdp = .*$/m, CERBOS_PDP_JS!.trim()));
  // The Cedar variant's policy folder and directory, as its README says: copied beside the app.
  cpSync(join(ROOT, 'policies', 'rbac'), join(appDir, 'policies', 'rbac'), { recursive: true });
  cpSync(join(ROOT, 'data', 'citadel-directory.json'), join(appDir, 'directory.json'));
  writeFileSync(join(appDir, 'app-cedar.js'), APP_JS!.replace(/^const pdp = .*$/m, CEDAR_PDP_JS!.trim()));
  const [rick, morty] = await Promise.all([stack.idp.token('rick@the-citadel.com'), stack.idp.token('morty@the-citadel.com')]);
  tokens = { rick: rick.access_token, morty: morty.access_token, rickId: rick.id_token };
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill();
  await Promise.all([stack?.close(), cerbos?.stop()]);
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

/** Starts `file` of the adopter's app with `pdpUrl`; resolves with its URL once it says it listens. */
async function startApp(file: string, pdpUrl: string): Promise<string> {
  const child = spawn(process.execPath, [file], { cwd: appDir, env: { PATH: process.env.PATH, ISSUER: stack.idp.url, PDP_URL: pdpUrl, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    const port = /listening on (\d+)/.exec(out)?.[1];
    if (port) return `http://127.0.0.1:${port}`;
  }
  throw new Error(`the adopter's app exited before it listened: ${out}`);
}

/**
 * The five answers: allowed, denied, ID token, no token — and, against a closed port,
 * unreachable (`pdpUrl` undefined: Cedar in-process, which has no peer to lose; its failures are
 * 503 too, as the package's own tests show).
 */
async function answersOf(file: string, pdpUrl: string | undefined): Promise<Record<string, unknown>> {
  const url = await startApp(file, pdpUrl ?? '');
  const unreachableUrl = pdpUrl === undefined ? undefined : await startApp(file, `http://127.0.0.1:${await freePort()}`);
  const del = async (base: string, token?: string) => {
    const res = await fetch(`${base}/resource/mega-seed`, { method: 'DELETE', headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], challenge: res.headers.get('www-authenticate'), body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  return {
    allowed: await del(url, tokens.rick),
    denied: await del(url, tokens.morty),
    idToken: await del(url, tokens.rickId),
    noToken: await del(url),
    ...(unreachableUrl === undefined ? {} : { unreachable: await del(unreachableUrl, tokens.rick) }),
  };
}

const EXPECTED = {
  allowed: { status: 200, type: 'text/html', challenge: null, body: 'Deleted mega-seed\n' },
  denied: { status: 403, type: 'application/json', challenge: null, body: { code: 'forbidden', message: 'Forbidden by policy rbac.DELETE' } },
  idToken: {
    status: 401,
    type: 'application/json',
    challenge: `Bearer realm="outpost", error="invalid_token", error_description="${ID_TOKEN_MESSAGE}"`,
    body: { error: 'invalid_token', error_description: ID_TOKEN_MESSAGE },
  },
  noToken: { status: 401, type: 'application/json', challenge: 'Bearer realm="outpost"', body: { error: 'unauthorized', error_description: 'an access token is required: send Authorization: Bearer <access_token>' } },
  unreachable: { status: 503, type: 'application/json', challenge: null, body: { code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly' } },
};

describe('an Express app outside the repository, with only the packed package installed', () => {
  it('holds the package and Express, and nothing else of Outpost', () => {
    expect(readdirSync(join(appDir, 'node_modules', '@outpost')).sort()).toEqual(['cedar-authorizer', 'express-authz']);
    for (const name of ['cedar-authorizer', 'express-authz']) {
      expect(readdirSync(join(appDir, 'node_modules', '@outpost', name)).sort()).toEqual(['README.md', 'dist', 'package.json']);
    }
  });

  it('answers as documented with Outpost’s sidecar edge as its AuthZEN PDP', async () => {
    expect(await answersOf('app.js', stack.edge.url)).toEqual(EXPECTED);
  });

  it('answers the same with a real Cerbos as its AuthZEN PDP', async () => {
    expect(await answersOf('app-cerbos.js', cerbos.url)).toEqual(EXPECTED);
  });

  it('answers the same with Cedar in-process over the rbac policy folder and the demo directory', async () => {
    const { unreachable: _none, ...inProcess } = EXPECTED;
    expect(await answersOf('app-cedar.js', undefined)).toEqual(inProcess);
  });
});
