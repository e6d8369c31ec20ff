// The console's Decisions view in Chromium (docs/reference/api.md, "Decision records"): Rick opens
// it, the test sends decisions to the demo tenant's real edge, and the rows appear live — Morty's
// DELETE denied with "no policy permits", Rick's allowed by the admins' policy — without a reload;
// selecting Rick's row shows, right under it, rbac.cedar with that policy highlighted. The stream is cut and the
// view reconnects and goes on. Screenshot: console-decisions.png, in .data/screenshots/
// (docs/screenshots/ with UPDATE_SCREENSHOTS=1). Run with `npm run test:browser`.
import { join } from 'node:path';
import { openDecisionRepository } from '../../src/decision-store';
import { USERS } from '../apps/app-fixture';
import { edgeAllows } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

describe('console Decisions view in Chromium', () => {
  const ctx = useConsoleInChromium();
  const view = () => ctx.page.locator('#view-decisions');
  const rowOf = (who: string, result: string) => view().locator('tbody tr', { has: ctx.page.locator('[data-col="who"]', { hasText: who }) }).filter({ has: ctx.page.locator('[data-col="result"]', { hasText: result }) });

  it('shows decisions as the edge makes them, with why, and the determining policy highlighted', async () => {
    await ctx.browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    await ctx.page.getByRole('button', { name: 'Decisions' }).click();
    await view().locator('.badge.live[data-state="live"]').waitFor({ timeout: 10_000 });

    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: USERS.morty.id }, 'rbac.DELETE', 'mega-seed')).toBe(false);
    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: USERS.rick.id }, 'rbac.DELETE', 'mega-seed')).toBe(true);
    const morty = rowOf('morty@the-citadel.com', 'deny');
    const rick = rowOf('rick@the-citadel.com', 'allow');
    await morty.waitFor({ timeout: 10_000 });
    await rick.waitFor({ timeout: 10_000 });
    expect(await morty.locator('[data-col="why"]').textContent()).toBe('no policy permits');
    expect(await rick.locator('[data-col="why"]').textContent()).toBe('Admins may do everything, DELETE included. — rbac.cedar:19');
    expect(await rick.locator('[data-col="what"]').textContent()).toBe('DELETE Resource:mega-seed');
    // Newest first: Rick's decision came second.
    expect(await view().locator('tbody tr').first().getAttribute('data-decision')).toBe(await rick.getAttribute('data-decision'));

    await rick.click();
    const marked = view().locator('.detail pre.policy[data-file="rbac.cedar"] mark');
    await marked.first().waitFor();
    // The detail opens in the row right under Rick's, which says it is open; selecting it again closes it.
    expect(await rick.evaluate((r) => r.nextElementSibling?.querySelector('.detail') !== null && r.getAttribute('aria-expanded'))).toBe('true');
    expect(await marked.first().getAttribute('data-line')).toBe('19');
    expect((await marked.allTextContents()).join('')).toContain('principal in Outpost::Role::"admin"');
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-decisions.png'), fullPage: true });
    await rick.click();
    await view().locator('.detail').waitFor({ state: 'detached' });
    expect(await rick.getAttribute('aria-expanded')).toBe('false');
    await morty.click();
    await view().locator('.detail').waitFor();
    expect(await morty.evaluate((r) => r.nextElementSibling?.querySelector('.detail h3')?.textContent)).toBe('Why deny: morty@the-citadel.com DELETE Resource:mega-seed');
  });

  it('reconnects when the stream is cut and shows what was decided meanwhile', async () => {
    // The server ends every open stream (as a restart would); the page comes back by itself.
    await view().locator('.badge.live[data-state="live"]').waitFor();
    ctx.stack.dropConnections();
    await view().locator('.badge.live[data-state="reconnecting"]').waitFor({ timeout: 10_000 });
    await view().locator('.badge.live[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: USERS.beth.id }, 'rbac.GET', 'portal-gun')).toBe(true);
    await rowOf('beth@the-smiths.com', 'allow').waitFor({ timeout: 10_000 });
    expect(await rowOf('beth@the-smiths.com', 'allow').count()).toBe(1);
    // The cut stream is the one error the page saw.
    expect(ctx.browser.consoleErrors.filter((e) => !e.includes('ERR_INCOMPLETE_CHUNKED_ENCODING'))).toEqual([]);
  });

  it('tries a decision at the chosen edge over the relay, shows its answer and why, and records nothing', async () => {
    const form = view().locator('form.try-form');
    await form.locator('select[name="instance"] option').first().waitFor({ state: 'attached' });
    expect(await form.locator('select[name="instance"]').inputValue()).toBe(ctx.stack.edge.instanceId);
    // Named by what its connection serves, as its card is: not by the host name.
    expect(await form.locator('select[name="instance"] option:checked').textContent()).toBe('sidecar · rbac');
    const tryAs = async (principal: string) => {
      await form.getByLabel('User').fill(principal);
      await form.getByLabel('Resource id').fill('try-target');
      await form.getByRole('button', { name: 'Try' }).click();
      await view().locator('.try-result[data-decision]').waitFor();
    };
    await tryAs(USERS.morty.email);
    await view().locator('.try-result[data-decision="deny"]').waitFor();
    expect(await view().locator('.try-result').textContent()).toMatch(/^deny: no policy permits \(image [0-9a-f]{12}…, directory revision \d+; not recorded\)$/);
    await tryAs(USERS.rick.email);
    await view().locator('.try-result[data-decision="allow"]').waitFor();
    expect(await view().locator('.try-result').textContent()).toMatch(/^allow: Admins may do everything, DELETE included\. — rbac\.cedar:19 /);

    // Nothing recorded: a real decision made after the tries arrives, and none of the tries before it.
    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: USERS.summer.id }, 'rbac.GET', 'after-the-tries')).toBe(true);
    await view().locator('tbody tr', { has: ctx.page.locator('[data-col="what"]', { hasText: 'Resource:after-the-tries' }) }).waitFor({ timeout: 10_000 });
    const tried = await openDecisionRepository(ctx.stack.store).list(ctx.stack.demo.tenantId, { resource: 'try-target' }, { limit: 10 });
    expect(tried).toEqual([]);
  });
});
