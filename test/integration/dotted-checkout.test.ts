/**
 * Where the project lives never matters to the pages: from a checkout under a folder whose
 * name starts with a dot (`~/src/.worktrees/outpost`), the todo page and the console load every
 * file they need, the vendored modules included, and a dot segment in a *request* path is
 * still refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { findProjectRoot } from '../../src/config';
import { consolePageRouter } from '../../src/console';
import { baseUrl, close, createApp, finishApp, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';

const root = findProjectRoot();
const TODO_PUBLIC = join(root, 'src', 'apps', 'todo', 'public');
const CONSOLE_PUBLIC = join(root, 'src', 'console', 'public');
const CODE_FLOW_CLIENT = join(root, 'src', 'http', 'public', 'code-flow-client.js');
const OAUTH4WEBAPI = require.resolve('oauth4webapi');

let temp: string;
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'outpost-dotted-'));
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** GET `url`: its status, and whether its body is exactly the bytes of `file`. */
async function get(url: string, file?: string): Promise<{ status: number; sameAsFile?: boolean }> {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  return file === undefined ? { status: res.status } : { status: res.status, sameAsFile: body.equals(readFileSync(file)) };
}

describe('a checkout under a dot-folder', () => {
  let child: ChildProcess | undefined;
  let urls: { projectRoot: string; todo: string; console: string };

  beforeAll(async () => {
    // The checkout as it would be cloned under ~/src/.worktrees: every path the process sees has the dot segment.
    const checkout = join(temp, '.worktrees', 'outpost');
    mkdirSync(join(temp, '.worktrees'));
    symlinkSync(root, checkout);
    child = spawn(
      process.execPath,
      ['--preserve-symlinks', '--preserve-symlinks-main', '-r', 'ts-node/register/transpile-only', join(checkout, 'test', 'integration', 'serve-pages.ts')],
      { cwd: checkout, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    urls = await new Promise((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as typeof urls);
      });
      child!.once('exit', (code) => reject(new Error(`the page server exited (${code}): ${err}`)));
    });
  });
  afterAll(() => child?.kill('SIGKILL'));

  it('runs from the dotted path', () => {
    expect(urls.projectRoot).toBe(join(temp, '.worktrees', 'outpost'));
  });

  const todoFiles: [string, string][] = [
    ['/', join(TODO_PUBLIC, 'index.html')],
    ...readdirSync(TODO_PUBLIC).map((name): [string, string] => [`/${name}`, join(TODO_PUBLIC, name)]),
    ['/vendor/oauth4webapi.js', OAUTH4WEBAPI],
    ['/vendor/code-flow-client.js', CODE_FLOW_CLIENT],
  ];
  it.each(todoFiles)('the todo page loads %s', async (path, file) => {
    expect(await get(`${urls.todo}${path}`, file)).toEqual({ status: 200, sameAsFile: true });
  });

  const consoleFiles: [string, string][] = [
    ['/console/', join(CONSOLE_PUBLIC, 'index.html')],
    ['/console/callback', join(CONSOLE_PUBLIC, 'index.html')],
    ...readdirSync(CONSOLE_PUBLIC).map((name): [string, string] => [`/console/${name}`, join(CONSOLE_PUBLIC, name)]),
    ['/console/vendor/oauth4webapi.js', OAUTH4WEBAPI],
    ['/console/vendor/code-flow-client.js', CODE_FLOW_CLIENT],
  ];
  it.each(consoleFiles)('the console loads %s', async (path, file) => {
    expect(await get(`${urls.console}${path}`, file)).toEqual({ status: 200, sameAsFile: true });
  });

  it('both pages learn where to sign in', async () => {
    expect((await get(`${urls.todo}/config.json`)).status).toBe(200);
    expect((await get(`${urls.console}/console/config.json`)).status).toBe(200);
  });
});

describe('pages served from a dotted folder still refuse a dot segment in the request path', () => {
  const servers: Server[] = [];
  let store: TodoStore;
  let todo: string;
  let consoleUrl: string;

  beforeAll(async () => {
    const pages = join(temp, '.pages');
    const todoDir = join(pages, 'todo');
    const consoleDir = join(pages, 'console');
    for (const [from, to] of [[TODO_PUBLIC, todoDir], [CONSOLE_PUBLIC, consoleDir]] as const) {
      cpSync(from, to, { recursive: true });
      writeFileSync(join(to, '.env'), 'SECRET=1\n');
      mkdirSync(join(to, '.git'));
      writeFileSync(join(to, '.git', 'config'), '[core]\n');
    }
    const logger = silentLogger();
    const refuse: RequestHandler = (_req, res) => void res.status(401).end();
    const authorizer: Authorizer = { kind: 'local', authorize: () => Promise.resolve({ allowed: false, policyPath: 'todo' }), close: () => Promise.resolve() };
    store = openTodoStore(join(temp, 'todo.db'));
    const todoApp = createTodoApp({ authenticate: refuse, authorizer, store, directory: () => ({}) as never, logger, publicDir: todoDir, authUrl: 'http://127.0.0.1:9' });
    const consoleApp = createApp(logger);
    consoleApp.use(consolePageRouter({ publicDir: consoleDir, authUrl: 'http://127.0.0.1:9' }));
    servers.push(await listen(todoApp, 0, '127.0.0.1'), await listen(finishApp(consoleApp, logger, 'api'), 0, '127.0.0.1'));
    [todo, consoleUrl] = servers.map((s) => baseUrl(s)) as [string, string];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => close(s)));
    store.close();
  });

  it('serves the pages, the console callback included', async () => {
    expect((await get(`${todo}/`)).status).toBe(200);
    expect((await get(`${todo}/app.js`)).status).toBe(200);
    expect(await get(`${consoleUrl}/console/callback`, join(CONSOLE_PUBLIC, 'index.html'))).toEqual({ status: 200, sameAsFile: true });
  });

  it.each(['/.env', '/.git/config', '/%2e%2e/%2epages/todo/.env'])('refuses %s on the todo app', async (path) => {
    const res = await fetch(`${todo}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'not_found', message: expect.stringMatching(/^no route for GET /) });
  });

  it.each(['/console/.env', '/console/.git/config'])('refuses %s on the console', async (path) => {
    const res = await fetch(`${consoleUrl}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'not_found', message: expect.stringMatching(/^no route for GET /) });
  });
});
