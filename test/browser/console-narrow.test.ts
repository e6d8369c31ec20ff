// Every view of the console on a 390-px-wide screen (a phone) in Chromium, and the IdP's login
// page it signs in at: nothing scrolls the page sideways. Rick (an owner, so every control is
// there) opens each view with its widest content — the edge's card, the connections and curl
// commands, an opened policy with its images, a file and a diff, the directory's tables, the
// organization's members, a decision opened and one tried, and the audit log — and the document
// is never wider than the screen, nor does any box or text of it stick out or scroll sideways:
// tables stack their rows, code wraps.
// Writes docs/screenshots/console-narrow-*.png. Run with `npm run test:browser`.
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createPolicyImage, readPolicyFolder } from '../../src/policy';
import { USERS } from '../apps/app-fixture';
import { admin, edgeAllows } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

const WIDTH = 390;

describe('console on a 390-px screen in Chromium', () => {
  const ctx = useConsoleInChromium();

  const tab = (name: string) => ctx.page.locator('#views button', { hasText: name });

  /**
   * The document's width, and what is wider than the screen: an element or a text sticking out
   * past it, or a box that would scroll sideways itself (a table that does not stack). Named, to say
   * where when it fails.
   */
  async function overflow(): Promise<{ scrollWidth: number; wide: string[] }> {
    return ctx.page.evaluate(`(() => {
      const name = (e) => e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '');
      const shown = [...document.querySelectorAll('body *')].filter((e) => e.getClientRects().length > 0);
      // Text sticks out of a box that does not clip it (a word too long to wrap): its element alone does not.
      const texts = [];
      for (let walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), t; (t = walk.nextNode()); ) if (t.parentElement.getClientRects().length > 0 && t.textContent.trim()) texts.push(t);
      return {
        scrollWidth: document.documentElement.scrollWidth,
        wide: [
          ...shown.filter((e) => e.getBoundingClientRect().right > ${WIDTH} + 0.5).map(name),
          ...shown.filter((e) => e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)).map((e) => 'scrolls: ' + name(e)),
          ...texts.filter((t) => { const r = document.createRange(); r.selectNodeContents(t); return r.getBoundingClientRect().right > ${WIDTH} + 0.5; }).map((t) => 'text: ' + name(t.parentElement)),
        ],
      };
    })()`);
  }

  /** Checks the shown view fits and keeps a screenshot of it. */
  async function expectFits(view: string): Promise<void> {
    await ctx.page.screenshot({ path: join(SCREENSHOTS, `console-narrow-${view}.png`), fullPage: true });
    const measured = await overflow();
    expect({ view, ...measured }).toEqual({ view, scrollWidth: expect.any(Number), wide: [] });
    expect(measured.scrollWidth).toBeLessThanOrEqual(WIDTH);
  }

  beforeAll(async () => {
    // A second rbac image, so the Policies view has a diff to show; and a grant, for the audit log.
    const rbac = readPolicyFolder(join(loadConfig({}).policiesDir, 'rbac'));
    const files = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// a longer line, to see that a diff wraps on a phone instead of widening the page\n` };
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files })).status).toBe(201);
    expect(createPolicyImage('rbac', files).digest).toMatch(/^sha256:/);
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin')).status).toBe(200);
    await ctx.page.setViewportSize({ width: WIDTH, height: 844 });
  });

  it("the IdP's login page, and a refused sign-in", async () => {
    await ctx.page.goto(`${ctx.stack.url}/console/`);
    await ctx.page.click('#sign-in');
    await ctx.page.waitForURL(`${ctx.stack.idp.url}/login/**`);
    await expectFits('idp-login');
    await ctx.page.selectOption('#username', 'summer@the-smiths.com'); // the longest option
    await ctx.page.fill('#password', 'not the password');
    await ctx.page.click('form:has(#password) button[type=submit]');
    await ctx.page.locator('[role=alert]').waitFor();
    await expectFits('idp-login-refused');
    // The refusal is the one error the page saw (its 401); later views must see none.
    expect(ctx.browser.consoleErrors.splice(0)).toEqual([expect.stringContaining('401 (Unauthorized)')]);
    await ctx.browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
  });

  it('Authorizers: the edge card', async () => {
    await ctx.page.locator('#view-authorizers article.card').waitFor();
    await expectFits('authorizers');
  });

  it('Connections: the connections, the create form and the curl commands', async () => {
    await tab('Connections').click();
    await ctx.page.locator('#view-connections .curls pre').first().waitFor();
    await expectFits('connections');
  });

  it('Policies: an opened policy with its images, a file and a diff', async () => {
    await tab('Policies').click();
    await ctx.page.getByRole('button', { name: 'Open rbac' }).click();
    await ctx.page.locator('#view-policies tbody tr').nth(1).waitFor();
    await ctx.page.locator('#view-policies tbody tr').first().getByRole('button', { name: /^View files of / }).click();
    await ctx.page.getByRole('button', { name: 'rbac.cedar', exact: true }).click();
    await expectFits('policies-files');
    await ctx.page.getByRole('button', { name: 'Show diff' }).click();
    await ctx.page.locator('#view-policies pre.diff').waitFor();
    await expectFits('policies-diff');
  });

  it('Directory: users with their grant controls, roles and resource relations', async () => {
    await tab('Directory').click();
    await ctx.page.locator('#view-directory tbody tr').first().waitFor();
    await expectFits('directory');
  });

  it('Organization management: the members with their controls', async () => {
    await tab('Organization management').click();
    await ctx.page.locator('#view-account tbody tr').first().waitFor();
    await expectFits('organization');
  });

  it('Decisions: the live list, and a decision opened next to its row', async () => {
    await tab('Decisions').click();
    const view = ctx.page.locator('#view-decisions');
    await view.locator('.badge.live[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: USERS.rick.id }, 'rbac.DELETE', 'a-resource-with-a-long-id-to-see-that-it-wraps')).toBe(true);
    // A subject the directory does not know (a Dex-style id, one word) is shown by its id, and denied.
    expect(await edgeAllows(ctx.stack.edge.url, { type: 'SUB', value: 'CiRmZDk5OTk5OS1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs' }, 'rbac.GET', 'mega-seed')).toBe(false);
    // Rick's, the older, is the second row: low on the screen, where its detail would open out of sight.
    const row = view.locator('tbody tr.decision').nth(1);
    await row.waitFor({ timeout: 10_000 });
    await expectFits('decisions');
    await row.evaluate((r) => r.scrollIntoView({ block: 'end' })); // the row at the bottom of the screen
    await row.click();
    await view.locator('.detail pre.policy mark').first().waitFor();
    // Opened under its row, its heading on the screen.
    expect(await row.evaluate((r) => r.nextElementSibling?.matches('tr.detail-row') && r.nextElementSibling.contains(r.closest('section')!.querySelector('.detail')))).toBe(true);
    const heading = (await view.locator('.detail h3').boundingBox())!;
    expect(heading.y).toBeGreaterThanOrEqual(0);
    expect(heading.y + heading.height).toBeLessThanOrEqual(844);
    await expectFits('decisions-detail');

    // And the try form, with its answer.
    const form = view.locator('form.try-form');
    await form.locator('select[name="instance"] option').first().waitFor({ state: 'attached' });
    await form.getByLabel('User').fill(USERS.rick.email);
    await form.getByLabel('Resource id').fill('a-resource-with-a-long-id-to-see-that-it-wraps');
    await form.getByRole('button', { name: 'Try' }).click();
    await view.locator('.try-result[data-decision="allow"]').waitFor();
    await expectFits('decisions-try');
  });

  it('Audit log: names, actions and targets', async () => {
    await tab('Audit log').click();
    await ctx.page.locator('#view-audit tbody tr').first().waitFor();
    await expectFits('audit');
  });

  it('Account settings: a personal account', async () => {
    const personal = await ctx.page.locator('#tenant option', { hasText: 'personal' }).getAttribute('value');
    await ctx.page.selectOption('#tenant', personal!);
    await tab('Account settings').click();
    await ctx.page.locator('#view-account #tenant-id', { hasText: personal! }).waitFor();
    await expectFits('account');
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
