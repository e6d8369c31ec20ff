// The console's Directory view in Chromium: Rick (an owner) grants Morty `admin` from the view,
// the same change the admin API makes, and the Authorizers view then shows the edge one
// directory revision behind; Beth (a viewer) sees the directory without any control.
// Screenshot: console-directory.png, in .data/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1, see console-browser.ts). Run with `npm run test:browser`.
import { join } from 'node:path';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

const MORTY = 'morty@the-citadel.com';

describe('console Directory view in Chromium', () => {
  const ctx = useConsoleInChromium();

  const mortyRow = () => ctx.page.locator(`#view-directory tr[data-user="${MORTY}"]`);

  it('lets Rick grant Morty admin; the Authorizers view then shows the edge 1 revision behind', async () => {
    await ctx.browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    const before = (await ctx.stack.store.directory.revision(ctx.stack.demo.tenantId))!;
    await ctx.page.getByRole('button', { name: 'Directory', exact: true }).click();
    await ctx.page.locator('#directory-revision', { hasText: String(before) }).waitFor();
    expect(await mortyRow().locator('td').nth(2).textContent()).toMatch(/^editor/);

    await ctx.page.selectOption(`#view-directory tr[data-user="${MORTY}"] select`, 'admin');
    await mortyRow().getByRole('button', { name: `Grant the selected role to ${MORTY}` }).click();
    await ctx.page.locator('#view-directory .result.ok', { hasText: `admin granted to ${MORTY} (revision ${before + 1})` }).waitFor();
    await ctx.page.locator('#directory-revision', { hasText: String(before + 1) }).waitFor();
    expect(await mortyRow().getByRole('button', { name: `Revoke admin from ${MORTY}` }).count()).toBe(1);
    expect((await ctx.stack.store.directory.snapshot(ctx.stack.demo.tenantId))!.users.find((u) => u.email === MORTY)!.roles).toEqual(['editor', 'admin']);
    expect((await ctx.stack.store.audit.list(ctx.stack.demo.tenantId))[0]).toMatchObject({ action: 'directory.role.grant.admin', outcome: 'ok' });
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-directory.png'), fullPage: true });

    await ctx.page.getByRole('button', { name: 'Authorizers', exact: true }).click();
    const card = ctx.page.locator('#view-authorizers article.card', { has: ctx.page.locator('[data-field="connection"]', { hasText: ctx.stack.demo.connectionId }) });
    await card.locator('[data-field="drift"]', { hasText: 'directory 1 revision behind' }).waitFor({ timeout: 15_000 });
    await ctx.browser.signOut();
  });

  it('shows Beth (a viewer) the directory with no grant or revoke controls', async () => {
    await ctx.browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await ctx.page.getByRole('button', { name: 'Directory', exact: true }).click();
    await mortyRow().waitFor();
    expect(await ctx.page.locator('#view-directory button').count()).toBe(0);
    expect(await ctx.page.locator('#view-directory select').count()).toBe(0);
    expect(await ctx.page.locator('#view-directory .hint').textContent()).toBe('You are a viewer of this account: you see the directory but cannot change it.');
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
