/**
 * Chromium (playwright-core) on the console of a {@link ConsoleStack}: a 1280×800 page that may
 * use the clipboard, the page's console errors, and sign-in through the IdP's real login page.
 * CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findProjectRoot } from '../../src/config';
import { DEMO_PASSWORD } from '../helpers/idp';
import { startConsoleStack, type ConsoleStack } from './console-stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where the tests write their screenshots: .data/screenshots/ (untracked), so a run leaves the
 * tree clean; with UPDATE_SCREENSHOTS=1, docs/screenshots/, the pictures of the README and the guide, to commit:
 * `UPDATE_SCREENSHOTS=1 npm run test:browser`.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? join(findProjectRoot(), 'docs', 'screenshots') : join(findProjectRoot(), '.data', 'screenshots');

/** The browser page on the console, and the steps every console test takes. */
export interface ConsoleBrowser {
  readonly page: Page;
  /** Console messages of type error seen so far. */
  readonly consoleErrors: string[];
  /** Opens /console/, signs in at the IdP's login page, waits until the page names the user. */
  signIn(email: string, name: string): Promise<void>;
  signOut(): Promise<void>;
  close(): Promise<void>;
}

/** Launches Chromium with a page on the stack's console. */
export async function openConsoleBrowser(stack: ConsoleStack): Promise<ConsoleBrowser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-gpu'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  return {
    page,
    consoleErrors,
    async signIn(email, name) {
      await page.goto(`${stack.url}/console/`);
      await page.click('#sign-in');
      await page.waitForURL(`${stack.idp.url}/login/**`);
      await page.selectOption('#username', email);
      await page.fill('#password', DEMO_PASSWORD);
      await page.click('form:has(#password) button[type=submit]');
      await page.waitForSelector(`#who:has-text("signed in as ${name}")`);
      expect(page.url()).toBe(`${stack.url}/console/`);
    },
    async signOut() {
      await page.click('#sign-out');
      // The IdP asks before it ends its session (RP-initiated logout).
      await page.waitForURL(`${stack.idp.url}/logout?**`);
      await page.click('button[value=yes]');
      await page.waitForSelector('#who:has-text("not signed in")');
      expect(page.url()).toBe(`${stack.url}/console/`);
    },
    close: () => browser.close(),
  };
}

/** What a console browser test works with; set before its first test runs. */
export interface ConsoleInChromium {
  readonly stack: ConsoleStack;
  readonly browser: ConsoleBrowser;
  readonly page: Page;
}

/**
 * Starts a console stack and Chromium on it before the calling file's tests (`beforeAll`)
 * and closes both after them (`afterAll`); read the fields inside the tests.
 */
export function useConsoleInChromium(): ConsoleInChromium {
  const ctx = {} as { stack: ConsoleStack; browser: ConsoleBrowser; page: Page };
  beforeAll(async () => {
    ctx.stack = await startConsoleStack();
    ctx.browser = await openConsoleBrowser(ctx.stack);
    ctx.page = ctx.browser.page;
  });
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.stack?.close();
  });
  return ctx;
}
