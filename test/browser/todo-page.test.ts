// The todo page in a real browser (Debian's Chromium driven by playwright-core): it signs
// in at the IdP across origins (CORS + CSP), calls the todo API with the access token, and
// shows the policy's refusals. Run with `npm run test:browser`; CHROMIUM_PATH overrides
// /usr/bin/chromium.
import type { RequestListener, Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { accessTokenMiddleware, openAppAuthorizer } from '../../src/apps/app-dependencies';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { startTestIdp, type TestIdp } from '../helpers/idp';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('todo web page in Chromium', () => {
  let idp: TestIdp;
  let server: Server;
  let url: string;
  let store: TodoStore;
  let authorizer: Authorizer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // The app listens first: its origin is what the IdP must allow.
    let handler: RequestListener = (_req, res) => res.end();
    server = await listen((req, res) => handler(req, res), 0, '127.0.0.1');
    url = baseUrl(server);
    idp = await startTestIdp({ IDP_CORS_ORIGINS: url });
    const config = loadConfig({ AUTH_URL: idp.url, LOG_LEVEL: 'silent' });
    const { directory } = loadDirectorySeed(config.directorySeedFile);
    dir = mkdtempSync(join(tmpdir(), 'outpost-browser-'));
    store = openTodoStore(join(dir, 'todo.db'));
    authorizer = openAppAuthorizer(config, 'local', 'todo', directory);
    handler = createTodoApp({
      authenticate: accessTokenMiddleware(config),
      authorizer,
      store,
      directory: () => directory,
      logger: silentLogger(),
      publicDir: join(config.projectRoot, 'src', 'apps', 'todo', 'public'),
      authUrl: idp.url,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await close(server);
    await authorizer?.close();
    store?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(email: string): Promise<void> {
    await page.selectOption('#user', email);
    await page.click('#login button');
    await page.waitForSelector(`#who:has-text("${email}")`);
  }

  it('signs Morty in at the IdP and adds a todo he then owns', async () => {
    await page.goto(`${url}/`);
    await signIn('morty@the-citadel.com');
    await page.fill('#title', 'Fix the portal gun');
    await page.click('#add button');
    await page.waitForSelector('li:has-text("Fix the portal gun") .owner:has-text("Morty Smith")');
    expect(await page.textContent('#status')).toBe('added');
    expect(store.list().map((t) => t.title)).toEqual(['Fix the portal gun']);
    expect(consoleErrors).toEqual([]);
  });

  it('shows the policy refusing Beth (a viewer) the delete, and keeps the todo', async () => {
    await signIn('beth@the-smiths.com');
    await page.click('li:has-text("Fix the portal gun") button');
    await page.waitForSelector('#status:has-text("403")');
    expect(await page.textContent('#status')).toBe('403 Forbidden by policy todo.delete');
    expect(store.list()).toHaveLength(1);
  });

  it('lets Rick (an admin) delete it', async () => {
    await signIn('rick@the-citadel.com');
    await page.click('li:has-text("Fix the portal gun") button');
    await page.waitForSelector('#status:has-text("deleted")');
    expect(await page.locator('li').count()).toBe(0);
    expect(store.list()).toEqual([]);
  });

  it('shows a wrong password as the IdP\'s refusal', async () => {
    await page.fill('#password', 'not the password');
    await page.click('#login button');
    await page.waitForSelector('#status:has-text("401")');
    expect(await page.textContent('#status')).toBe('401 the username or password is incorrect');
  });
});
