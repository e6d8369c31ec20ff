// The control-plane console in a real browser (Debian's Chromium driven by playwright-core):
// Rick signs in through the IdP's real login page with the code flow + PKCE as the console
// client, finds his edge's instance id by its connection id in the Authorizers view, sees a
// central directory grant show up as drift without a reload (polling), and sends both relay
// commands, after which the card shows the edge's new state at once (the page's clock is
// stopped then, so no poll can do it); Beth (a viewer) sees no action buttons and the server
// refuses her forged command.
// Screenshots: console-authorizers*.png, in .data/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1, see console-browser.ts). Run with `npm run test:browser`.
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { admin } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

const RICK = 'rick@the-citadel.com';
const BETH = 'beth@the-smiths.com';

describe('control-plane console in Chromium', () => {
  const ctx = useConsoleInChromium();

  const signIn = (email: string, name: string) => ctx.browser.signIn(email, name);
  const signOut = () => ctx.browser.signOut();

  /**
   * Stops the page's clock at about its present. `pauseAt` needs a time ahead of the page's
   * clock, and on a busy machine the clock can pass the time just read before the call arrives
   * ("Cannot fast-forward to the past"); the call has stopped the clock by then, so reading it
   * again gives a time the next call reaches.
   */
  async function pauseClockNow(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const now = await ctx.page.evaluate<number>('Date.now()');
      try {
        await ctx.page.clock.pauseAt(now + 1);
        return;
      } catch (err) {
        if (attempt === 3 || !String(err).includes('Cannot fast-forward to the past')) throw err;
      }
    }
  }

  /** The Authorizers view's card of the edge that uses `connectionId`. */
  function cardOf(connectionId: string): Locator {
    return ctx.page.locator('#view-authorizers article.card', { has: ctx.page.locator(`[data-field="connection"]`, { hasText: connectionId }) });
  }

  it('serves the page with a CSP of its own origin plus the IdP for connect-src, and nobody signed in', async () => {
    const res = await ctx.page.goto(`${ctx.stack.url}/console/`);
    expect(res?.headers()['content-security-policy']).toContain(`connect-src 'self' ${ctx.stack.idp.url}`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await ctx.page.waitForSelector('#who:has-text("not signed in")');
    expect(await ctx.page.isVisible('#views')).toBe(false);
    expect(await ctx.page.isVisible('#view-authorizers')).toBe(false);
  });

  it('signs Rick in, switches to the demo organization, and lists the edge by connection id with its instance id', async () => {
    // The page's own clock, running as usual until a test stops it.
    await ctx.page.clock.install();
    await signIn(RICK, 'Rick Sanchez');
    const options = await ctx.page.locator('#tenant option').allTextContents();
    expect(options).toEqual(['demo · organization · owner', 'Rick Sanchez (personal) · personal · owner']);
    expect(await ctx.page.inputValue('#tenant')).toBe(ctx.stack.demo.tenantId);
    const card = cardOf(ctx.stack.demo.connectionId);
    await card.waitFor();
    expect(await card.locator('[data-field="instance"]').textContent()).toBe(ctx.stack.edge.instanceId);
    // Headed by what its connection serves; the host name is a field of the card.
    expect(await card.locator('h3').textContent()).toBe('sidecar');
    expect(await card.locator('[data-field="host"]').textContent()).toBe('console-edge-1');
    expect(await card.locator('.badge').textContent()).toBe('connected');
    expect(await card.locator('[data-field="drift"]').textContent()).toBe('policy up to date; directory up to date');
    await card.getByRole('button', { name: `Copy instance id ${ctx.stack.edge.instanceId}` }).click();
    expect(await ctx.page.evaluate('navigator.clipboard.readText()')).toBe(ctx.stack.edge.instanceId);
    expect(await ctx.page.locator('#view-authorizers .meta').textContent()).toMatch(/^1 registered edge · updated .* · refreshes every 5 s$/);
  });

  it('shows a central directory grant as lag without a reload, and "Sync edge directory" brings the edge up to date', async () => {
    const card = cardOf(ctx.stack.demo.connectionId);
    const revision = Number(await card.locator('[data-field="revision"]').textContent());
    const grant = await admin(ctx.stack.url, ctx.stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect(grant.status).toBe(200);
    // The next poll (every 5 s) shows the drift: the page was not reloaded.
    await card.locator('[data-field="drift"]', { hasText: 'directory 1 revision behind' }).waitFor({ timeout: 15_000 });
    expect(await card.getAttribute('data-drift')).toBe('true');
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-authorizers.png') });

    // From here no timer of the page fires: only the refresh that follows a confirmed command can update the card.
    await pauseClockNow();
    await card.getByRole('button', { name: 'Sync edge directory' }).click();
    await card.locator('.result', { hasText: 'Sync edge directory: confirmed by the edge' }).waitFor();
    await card.locator('[data-field="revision"]', { hasText: String(revision + 1) }).waitFor({ timeout: 5_000 });
    expect(await card.locator('[data-field="drift"]').textContent()).toBe('policy up to date; directory up to date');
    expect(await card.getAttribute('data-drift')).toBe('false');
    await ctx.page.clock.resume();

    await card.getByRole('button', { name: 'Sync policy instance' }).click();
    await card.locator('.result', { hasText: 'Sync policy instance: confirmed by the edge' }).waitFor();
    const audit = (await ctx.stack.store.audit.list(ctx.stack.demo.tenantId)).map((e) => [e.action, e.target, e.outcome]);
    expect(audit).toEqual(
      expect.arrayContaining([
        ['command.sync_edge_directory', ctx.stack.edge.instanceId, 'ok'],
        ['command.discovery', ctx.stack.edge.instanceId, 'ok'],
      ]),
    );
  });

  it('shows the documented refusal when the edge is gone (409), with its message', async () => {
    const card = cardOf(ctx.stack.demo.connectionId);
    await ctx.stack.edge.stop();
    await card.locator('.badge', { hasText: 'disconnected' }).waitFor({ timeout: 15_000 });
    await card.getByRole('button', { name: 'Sync edge directory' }).click();
    await card.locator('.result.error').waitFor();
    expect(await card.locator('.result').textContent()).toMatch(/^Sync edge directory failed: 409 \w+: .+/);
  });

  it('is readable on a narrow screen: nothing scrolls sideways', async () => {
    await ctx.page.setViewportSize({ width: 390, height: 800 });
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-authorizers-narrow.png'), fullPage: true });
    const wide = await ctx.page.evaluate(`[...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''))`);
    expect(wide).toEqual([]);
    await ctx.page.setViewportSize({ width: 1280, height: 800 });
    await signOut();
  });

  it('shows Beth (a viewer) the edges without action buttons, and the server refuses her forged command', async () => {
    await signIn(BETH, 'Beth Smith');
    expect(await ctx.page.inputValue('#tenant')).toBe(ctx.stack.demo.tenantId);
    const card = cardOf(ctx.stack.demo.connectionId);
    await card.waitFor();
    expect(await ctx.page.isVisible('#view-authorizers .viewer-note')).toBe(true);
    expect(await ctx.page.locator('#view-authorizers button[data-command]').count()).toBe(0);
    // The page's own module and token (a string, so the browser, not ts-jest, runs the import).
    const forged = await ctx.page.evaluate(`(async () => {
      const { api } = await import('/console/api.js');
      try {
        await api('POST', '/tenants/${ctx.stack.demo.tenantId}/authorizers/${ctx.stack.edge.instanceId}/commands', { command: 'sync_edge_directory' });
        return { status: 200, code: 'ok' };
      } catch (err) {
        return { status: err.status, code: err.code };
      }
    })()`);
    expect(forged).toEqual({ status: 403, code: 'forbidden' });
    await signOut();
  });

  it('treats a callback without a sign-in in progress as a failed sign-in', async () => {
    await ctx.page.goto(`${ctx.stack.url}/console/callback?code=forged&state=forged`);
    await ctx.page.waitForSelector('#status:has-text("sign-in failed")');
    expect(await ctx.page.textContent('#who')).toBe('not signed in');
    expect(ctx.page.url()).toBe(`${ctx.stack.url}/console/`);
    // The 403 (Beth's forged command) and the 409 are answers the tests asked for; anything else is a bug.
    expect(ctx.browser.consoleErrors.filter((m) => !m.startsWith('Failed to load resource'))).toEqual([]);
  });
});
