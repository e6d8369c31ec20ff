// The console's Directory view in Chromium: Rick (an owner) grants Morty `admin` from the view,
// the same change the admin API makes, and the Authorizers view then shows the edge one
// directory revision behind; Beth (a viewer) sees the directory without any control.
// Writes docs/screenshots/console-directory.png. Run with `npm run test:browser`.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openConsoleBrowser, SCREENSHOTS, type ConsoleBrowser } from './console-browser';
import { startConsoleStack, type ConsoleStack } from './console-stack';

const MORTY = 'morty@the-citadel.com';

describe('console Directory view in Chromium', () => {
  let stack: ConsoleStack;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    stack = await startConsoleStack();
    browser = await openConsoleBrowser(stack);
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const mortyRow = () => page.locator(`#view-directory tr[data-user="${MORTY}"]`);

  it('lets Rick grant Morty admin; the Authorizers view then shows the edge 1 revision behind', async () => {
    await browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    const before = stack.store.directory.revision(stack.demo.tenantId)!;
    await page.getByRole('button', { name: 'Directory', exact: true }).click();
    await page.locator('#directory-revision', { hasText: String(before) }).waitFor();
    expect(await mortyRow().locator('td').nth(2).textContent()).toMatch(/^editor/);

    await page.selectOption(`#view-directory tr[data-user="${MORTY}"] select`, 'admin');
    await mortyRow().getByRole('button', { name: `Grant the selected role to ${MORTY}` }).click();
    await page.locator('#view-directory .result.ok', { hasText: `admin granted to ${MORTY} (revision ${before + 1})` }).waitFor();
    await page.locator('#directory-revision', { hasText: String(before + 1) }).waitFor();
    expect(await mortyRow().getByRole('button', { name: `Revoke admin from ${MORTY}` }).count()).toBe(1);
    expect(stack.store.directory.snapshot(stack.demo.tenantId)!.users.find((u) => u.email === MORTY)!.roles).toEqual(['editor', 'admin']);
    expect(stack.store.audit.list(stack.demo.tenantId)[0]).toMatchObject({ action: 'directory.role.grant.admin', outcome: 'ok' });
    await page.screenshot({ path: join(SCREENSHOTS, 'console-directory.png'), fullPage: true });

    await page.getByRole('button', { name: 'Authorizers', exact: true }).click();
    const card = page.locator('#view-authorizers article.card', { has: page.locator('[data-field="connection"]', { hasText: stack.demo.connectionId }) });
    await card.locator('[data-field="drift"]', { hasText: 'directory 1 revision behind' }).waitFor({ timeout: 15_000 });
    await browser.signOut();
  });

  it('shows Beth (a viewer) the directory with no grant or revoke controls', async () => {
    await browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await page.getByRole('button', { name: 'Directory', exact: true }).click();
    await mortyRow().waitFor();
    expect(await page.locator('#view-directory button').count()).toBe(0);
    expect(await page.locator('#view-directory select').count()).toBe(0);
    expect(await page.locator('#view-directory .hint').textContent()).toBe('You are a viewer of this account: you see the directory but cannot change it.');
    await browser.signOut();
    expect(browser.consoleErrors).toEqual([]);
  });
});
