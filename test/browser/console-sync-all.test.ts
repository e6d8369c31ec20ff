// "Sync all" on the console's Authorizers view in Chromium: Rick grants Morty admin centrally,
// sees the edge lag, presses "Sync all directories" and the page shows the broadcast's answer
// (docs/reference/api.md, "Broadcast") and the edge up to date; once the edge is gone, "Sync all
// policies" reports it as not connected. Beth (a viewer) sees no Sync all buttons, and the
// server refuses her forged broadcast. Screenshot: console-sync-all.png, in .data/screenshots/
// (docs/screenshots/ with UPDATE_SCREENSHOTS=1). Run with `npm run test:browser`.
import { join } from 'node:path';
import { admin } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

describe('console "Sync all" in Chromium', () => {
  const ctx = useConsoleInChromium();
  const bar = () => ctx.page.locator('#view-authorizers .sync-all');

  it('sends sync_edge_directory to every edge of the tenant and shows what each did', async () => {
    await ctx.browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    const card = ctx.page.locator('#view-authorizers article.card', { has: ctx.page.locator('[data-field="instance"]', { hasText: ctx.stack.edge.instanceId }) });
    await card.waitFor();
    const revision = Number(await card.locator('[data-field="revision"]').textContent());
    const grant = await admin(ctx.stack.url, ctx.stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect(grant.status).toBe(200);

    await bar().getByRole('button', { name: 'Sync all directories' }).click();
    await bar().locator('.result.ok').waitFor();
    expect(await bar().locator('.result').textContent()).toMatch(/^Sync all directories: 1 of 1 edge confirmed, 0 not connected at .+$/);
    // The confirmed broadcast refreshes the cards at once.
    await card.locator('[data-field="revision"]', { hasText: String(revision + 1) }).waitFor({ timeout: 5_000 });
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-sync-all.png') });
    const audit = (await ctx.stack.store.audit.list(ctx.stack.demo.tenantId)).map((e) => [e.action, e.target, e.outcome]);
    expect(audit).toContainEqual(['broadcast.sync_edge_directory', '1 of 1 confirmed, 0 not connected', 'ok']);
  });

  it('counts an edge that has gone as not connected', async () => {
    await ctx.stack.edge.stop();
    await ctx.page.locator('#view-authorizers .badge', { hasText: 'disconnected' }).waitFor({ timeout: 15_000 });
    await bar().getByRole('button', { name: 'Sync all policies' }).click();
    await ctx.page.locator('#view-authorizers .sync-all .result', { hasText: 'Sync all policies: 0 of' }).waitFor();
    expect(await bar().locator('.result').textContent()).toMatch(/^Sync all policies: 0 of 0 edges confirmed, 1 not connected at .+$/);
    await ctx.browser.signOut();
  });

  it('shows Beth (a viewer) no Sync all buttons, and the server refuses her forged broadcast', async () => {
    await ctx.browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await ctx.page.locator('#view-authorizers article.card').first().waitFor();
    expect(await bar().isVisible()).toBe(false);
    const forged = await ctx.page.evaluate(`(async () => {
      const { api } = await import('/console/api.js');
      try {
        await api('POST', '/tenants/${ctx.stack.demo.tenantId}/authorizers/commands', { command: 'discovery' });
        return { status: 200 };
      } catch (err) {
        return { status: err.status, code: err.code };
      }
    })()`);
    expect(forged).toEqual({ status: 403, code: 'forbidden' });
    expect(ctx.browser.consoleErrors.filter((e) => !e.includes('403'))).toEqual([]);
  });
});
