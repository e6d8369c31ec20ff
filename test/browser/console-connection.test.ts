// Creating an edge connection from the console's Connections view in Chromium: Rick (an owner)
// creates one for rbac, the page shows its secret once with a copy button, and the store
// takes it as that connection's credential; once the view is left the secret is gone for
// good. Beth (a viewer) gets no form. Run with `npm run test:browser`.
import type { Page } from 'playwright-core';
import { openConsoleBrowser, type ConsoleBrowser } from './console-browser';
import { startConsoleStack, type ConsoleStack } from './console-stack';

describe('console: create a connection in Chromium', () => {
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

  const view = () => page.locator('#view-connections');
  const openConnections = async () => {
    await page.getByRole('button', { name: 'Connections', exact: true }).click();
    await view().locator('.key').waitFor();
  };

  it('lets Rick create a connection and shows its secret once, with a copy button; the secret is a working credential', async () => {
    await browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    await openConnections();
    await view().locator('#new-connection-policy').selectOption('rbac');
    await view().getByRole('button', { name: 'Create connection' }).click();
    await page.waitForSelector('#new-connection-secret');
    const secret = (await page.textContent('#new-connection-secret'))!;
    expect(secret).toMatch(/^cs_/);
    await view().getByRole('button', { name: 'Copy connection secret' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);

    const created = stack.store.tenants.get(stack.demo.tenantId)!.connections.at(-1)!;
    expect(await view().locator('.plain li code').allTextContents()).toContain(created.connectionId);
    expect(stack.store.tenants.verifyConnection(created.connectionId, secret)).toEqual({ tenantId: stack.demo.tenantId, connectionId: created.connectionId, policyName: 'rbac' });
    expect(stack.store.audit.list(stack.demo.tenantId)[0]).toMatchObject({ action: 'connection.create', target: created.connectionId, outcome: 'ok' });

    // Shown once: leaving and coming back lists the connection, never its secret.
    await page.getByRole('button', { name: 'Authorizers', exact: true }).click();
    await openConnections();
    expect(await view().locator('.plain li code').allTextContents()).toContain(created.connectionId);
    expect(await page.locator('#new-connection-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await browser.signOut();
  });

  it('gives Beth (a viewer) no form to create one', async () => {
    await browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await openConnections();
    expect(await view().getByRole('button', { name: 'Create connection' }).count()).toBe(0);
    await browser.signOut();
    expect(browser.consoleErrors).toEqual([]);
  });
});
