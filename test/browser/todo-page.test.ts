// The todo page in a real browser (Debian's Chromium driven by playwright-core): it signs
// in with the authorization code flow + PKCE through the IdP's real login page (discovery,
// token and revocation across origins: CORS + CSP), calls the todo API with the access
// token, and shows the policy's refusals. Run with `npm run test:browser`; CHROMIUM_PATH overrides
// /usr/bin/chromium.
import type { RequestListener, Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { openLocalAuthorizer } from '../../src/authorizer';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { DEMO_PASSWORD, startTestIdp, type TestIdp } from '../helpers/idp';

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
    // TODO_URL registers this page's origin as the todo client's redirect URI.
    idp = await startTestIdp({ IDP_CORS_ORIGINS: url, TODO_URL: url });
    const config = loadConfig({ AUTH_URL: idp.url, LOG_LEVEL: 'silent' });
    const { directory } = loadDirectorySeed(config.directorySeedFile);
    dir = mkdtempSync(join(tmpdir(), 'outpost-browser-'));
    store = openTodoStore(join(dir, 'todo.db'));
    authorizer = openLocalAuthorizer({ policiesDir: config.policiesDir, policyName: 'todo', directory });
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

  async function signIn(email: string, password = DEMO_PASSWORD): Promise<void> {
    await page.click('#sign-in');
    await page.waitForURL(`${idp.url}/login/**`);
    await page.selectOption('#username', email);
    await page.fill('#password', password);
    await page.click('form:has(#password) button[type=submit]');
  }

  async function signOut(): Promise<void> {
    await page.click('#sign-out');
    // The IdP asks before it ends its session (RP-initiated logout).
    await page.waitForURL(`${idp.url}/logout?**`);
    await page.click('button[value=yes]');
    await page.waitForSelector('#who:has-text("not signed in")');
    expect(page.url()).toBe(`${url}/`);
  }

  it('hides the Add form until someone signs in', async () => {
    await page.goto(`${url}/`);
    await page.waitForSelector('#who:has-text("not signed in")');
    expect(await page.isVisible('#add')).toBe(false);
    expect(await page.isVisible('#sign-out')).toBe(false);
  });

  it('signs Morty in at the IdP login page and adds a todo he then owns', async () => {
    await signIn('morty@the-citadel.com');
    await page.waitForSelector('#who:has-text("signed in as morty@the-citadel.com")');
    expect(page.url()).toBe(`${url}/`);
    expect(await page.isVisible('#add')).toBe(true);
    await page.fill('#title', 'Fix the portal gun');
    await page.click('#add button');
    await page.waitForSelector('li:has-text("Fix the portal gun") .owner:has-text("Morty Smith")');
    expect(await page.textContent('#status')).toBe('added');
    expect(store.list().map((t) => t.title)).toEqual(['Fix the portal gun']);
    await signOut();
    expect(await page.isVisible('#add')).toBe(false);
  });

  it('shows the policy refusing Beth (a viewer) the delete, and keeps the todo', async () => {
    await signIn('beth@the-smiths.com');
    await page.waitForSelector('#who:has-text("signed in as beth@the-smiths.com")');
    // The page asked ahead and says why beside each control; the button still works, and the API refuses.
    await page.waitForSelector('li:has-text("Fix the portal gun") .why:has-text("may not update, may not delete")');
    expect(await page.getAttribute('li:has-text("Fix the portal gun") button', 'title')).toBe('not allowed: denied: no policy permits');
    expect(await page.getAttribute('#add-button', 'class')).toBe('denied');
    expect(await page.textContent('#add-why')).toBe('You may not add todos (denied: no policy permits).');
    await page.click('li:has-text("Fix the portal gun") button');
    await page.waitForSelector('#status:has-text("403")');
    expect(await page.textContent('#status')).toBe('403 Forbidden by policy todo.can_delete_todo');
    expect(store.list()).toHaveLength(1);
    await signOut();
  });

  it('lets Rick (an admin) delete it', async () => {
    await signIn('rick@the-citadel.com');
    await page.waitForSelector('#who:has-text("signed in as rick@the-citadel.com")');
    await page.waitForSelector('li:has-text("Fix the portal gun") button[title^="allowed: permitted by todo.cedar:"]');
    expect(await page.textContent('#add-why')).toBe('');
    await page.click('li:has-text("Fix the portal gun") button');
    await page.waitForSelector('#status:has-text("deleted")');
    expect(await page.locator('li').count()).toBe(0);
    expect(store.list()).toEqual([]);
    await signOut();
  });

  it('shows a wrong password on the IdP\'s page, and the todo page then says nobody is signed in', async () => {
    await signIn('rick@the-citadel.com', 'not the password');
    await page.waitForSelector('[role=alert]:has-text("Sign-in failed: the username or password is incorrect.")');
    expect(page.url()).toMatch(new RegExp(`^${idp.url}/login/[\\w-]+$`));
    await page.goto(`${url}/`);
    await page.waitForSelector('#who:has-text("not signed in")');
    expect(await page.isVisible('#add')).toBe(false);
  });

  // Seen once in CI under load: the page's HTML said "not signed in" before its script had found
  // the IdP and wired Sign in, so a click then did nothing. Held here on purpose: the page says
  // "loading…" with Sign in disabled until it can sign in.
  it('offers Sign in only once it can sign in: while the IdP discovery is held, it says loading and the button is disabled', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`${idp.url}/.well-known/openid-configuration`, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${url}/`, { waitUntil: 'domcontentloaded' });
      expect(await page.textContent('#who')).toBe('loading…');
      expect(await page.isDisabled('#sign-in')).toBe(true);
      release();
      await page.waitForSelector('#who:has-text("not signed in")');
      expect(await page.isDisabled('#sign-in')).toBe(false);
    } finally {
      release();
      await page.unroute(`${idp.url}/.well-known/openid-configuration`);
    }
    await signIn('summer@the-smiths.com');
    await page.waitForSelector('#who:has-text("signed in as summer@the-smiths.com")');
    await signOut();
  });

  it('treats an error answer from the IdP as a failed sign-in, not as the previous user', async () => {
    await signIn('summer@the-smiths.com');
    await page.waitForSelector('#who:has-text("signed in as summer@the-smiths.com")');
    await page.goto(`${url}/?error=access_denied&state=forged`);
    await page.waitForSelector('#status:has-text("sign-in failed")');
    expect(await page.textContent('#who')).toBe('not signed in');
    expect(await page.isVisible('#add')).toBe(false);
    // The 403 (Beth's delete) and 401 (the wrong password) are answers the tests asked for;
    // anything else (a CSP violation, a script error) is a bug.
    expect(consoleErrors.filter((m) => !m.startsWith('Failed to load resource'))).toEqual([]);
  });
});
