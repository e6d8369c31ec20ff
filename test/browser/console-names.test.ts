// The console speaks in names, in Chromium: Rick sees the organization's members by name and
// e-mail (the user id on hover and behind a copy button), the demo connections by what they
// serve (the sidecar, the sample apps' embedded edges) in the Connections view and as the edge's
// card's heading (the host name only for a connection without a label), creates a connection with a label, and reads an audit log whose entries name who did
// what to whom — himself, the admin key for a change made through the admin API, and the CLI
// for one made with `npm run tenants`.
// Writes docs/screenshots/console-names-*.png. Run with `npm run test:browser`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordCliAudit } from '../../src/control-plane';
import { startEdgeNode } from '../integration/edge-node';
import { admin } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

const RICK = { email: 'rick@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01' };
const MORTY = { email: 'morty@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02' };

describe('console names in Chromium', () => {
  const ctx = useConsoleInChromium();

  const tab = (name: string) => ctx.page.locator('#views button', { hasText: name });
  const clipboard = () => ctx.page.evaluate('navigator.clipboard.readText()') as Promise<string>;

  it('shows the members by name and e-mail, each user id on hover and to copy', async () => {
    await ctx.browser.signIn(RICK.email, 'Rick Sanchez');
    await tab('Organization management').click();
    const morty = ctx.page.locator(`#view-account tr[data-member="${MORTY.id}"] .named`);
    await morty.waitFor();
    expect(await morty.locator('.name').textContent()).toBe('Morty Smith');
    expect(await morty.locator('.detail').textContent()).toBe(MORTY.email);
    expect(await morty.getAttribute('title')).toBe(`user id: ${MORTY.id}`);
    await morty.getByRole('button', { name: `Copy user id ${MORTY.id}` }).click();
    expect(await clipboard()).toBe(MORTY.id);
    const names = await ctx.page.locator('#view-account tbody .named .name').allTextContents();
    expect(names).toEqual(['Rick Sanchez', 'Morty Smith', 'Beth Smith']);
    expect(await ctx.page.locator('#view-account tbody').textContent()).not.toContain(MORTY.id);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-names-members.png'), fullPage: true });
  });

  it('labels the connections by what they serve, in the Connections view and on the edge card', async () => {
    await tab('Connections').click();
    const item = (connectionId: string) => ctx.page.locator(`#view-connections li[data-connection="${connectionId}"]`);
    await item(ctx.stack.demo.connectionId).waitFor();
    expect(await item(ctx.stack.demo.connectionId).locator('.label').textContent()).toBe('sidecar');
    expect(await item(ctx.stack.demo.connectionId).locator('code').textContent()).toBe(ctx.stack.demo.connectionId);
    // Every app of apps.json has its embedded edge's connection, labelled with the app.
    const { connections } = (await ctx.stack.store.tenants.get(ctx.stack.demo.tenantId))!;
    for (const c of connections) expect(await item(c.connectionId).locator('.label').textContent()).toBe(c.label);
    expect(connections.map((c) => c.label)).toEqual(expect.arrayContaining(['sidecar', 'RBAC app (embedded edge)', 'todo app (embedded edge)']));

    await tab('Authorizers').click();
    const card = ctx.page.locator('#view-authorizers article.card', { has: ctx.page.locator('[data-field="connection"]', { hasText: ctx.stack.demo.connectionId }) });
    await card.locator('h3[data-named="label"]').waitFor();
    expect(await card.locator('h3').textContent()).toBe('sidecar');
    expect(await card.getAttribute('aria-labelledby')).toBe(await card.locator('h3').getAttribute('id'));

    // An edge on a connection without a label: its card is headed by its host name.
    const bare = await ctx.stack.store.tenants.addConnection(ctx.stack.demo.tenantId, 'rbac');
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-console-bare-edge-'));
    const edge = await startEdgeNode({
      relayUrl: ctx.stack.url,
      credentials: bare,
      dataDir,
      hostname: 'bare-host',
      jwt: { issuer: ctx.stack.idp.issuer, jwksUri: ctx.stack.idp.jwksUri, audience: ctx.stack.idp.audience },
    });
    try {
      const bareCard = ctx.page.locator('#view-authorizers article.card', { has: ctx.page.locator('[data-field="connection"]', { hasText: bare.connectionId }) });
      await bareCard.locator('h3[data-named="host"]').waitFor({ timeout: 15_000 });
      expect(await bareCard.locator('h3').textContent()).toBe('bare-host');
    } finally {
      await edge.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('creates a connection with a label, listed by it', async () => {
    await tab('Connections').click();
    const view = ctx.page.locator('#view-connections');
    await view.locator('#new-connection-policy').selectOption('todo');
    await view.locator('#new-connection-label').fill('  todo worker  ');
    await view.getByRole('button', { name: 'Create connection' }).click();
    await ctx.page.waitForSelector('#new-connection-secret');
    const created = (await ctx.stack.store.tenants.get(ctx.stack.demo.tenantId))!.connections.at(-1)!;
    expect(created).toMatchObject({ policyName: 'todo', label: 'todo worker' });
    expect(await view.locator(`li[data-connection="${created.connectionId}"] .label`).textContent()).toBe('todo worker');
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-names-connections.png'), fullPage: true });
  });

  it("names who did what to whom in the audit log: Rick, the admin key for the admin API's change, the CLI for its own", async () => {
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'PUT', `/api/v2/admin/directory/users/${MORTY.email}/roles/admin`)).status).toBe(200);
    // As `npm run tenants -- add-member` writes it.
    await recordCliAudit(ctx.stack.store.audit, ctx.stack.demo.tenantId, 'member.set.admin', MORTY.id);
    await tab('Audit log').click();
    const rows = ctx.page.locator('#view-audit tbody tr');
    await rows.nth(2).waitFor();
    const cell = (row: number, col: string) => rows.nth(row).locator(`[data-col="${col}"]`);
    // Newest first: the CLI's change, the admin key's grant, then Rick's new connection.
    expect(await cell(0, 'who').locator('.name').textContent()).toBe('CLI');
    expect(await cell(0, 'who').locator('.detail').textContent()).toBe('npm run tenants');
    expect(await cell(0, 'target').locator('.name').textContent()).toBe('Morty Smith');

    expect(await cell(1, 'who').locator('.name').textContent()).toBe('admin key');
    expect(await cell(1, 'who').locator('.detail').textContent()).toBe('admin API, npm run policy or directory');
    expect(await cell(1, 'action').textContent()).toBe('directory.role.grant.admin');
    expect(await cell(1, 'target').locator('.name').textContent()).toBe('Morty Smith');
    expect(await cell(1, 'target').locator('.named').getAttribute('title')).toBe(`user id: ${MORTY.id}`);

    expect(await cell(2, 'who').locator('.name').textContent()).toBe('Rick Sanchez');
    expect(await cell(2, 'who').locator('.named').getAttribute('title')).toBe(`user id: ${RICK.id}`);
    expect(await cell(2, 'action').textContent()).toBe('connection.create');
    expect(await cell(2, 'target').locator('.name').textContent()).toBe('todo worker');
    await cell(2, 'target').getByRole('button', { name: /^Copy connection id / }).click();
    expect(await clipboard()).toBe((await ctx.stack.store.tenants.get(ctx.stack.demo.tenantId))!.connections.at(-1)!.connectionId);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-names-audit.png'), fullPage: true });
  });

  it('calls the signed-in user "you" where an account has no directory name for them (a personal account)', async () => {
    const personal = await ctx.page.locator('#tenant option', { hasText: 'personal' }).getAttribute('value');
    await ctx.page.selectOption('#tenant', personal!);
    // Rick's own change there, then his personal audit log.
    await tab('Connections').click();
    await ctx.page.locator('#view-connections .key').waitFor();
    await ctx.page.locator('#view-connections').getByRole('button', { name: 'Rotate Discovery API key…' }).click();
    await ctx.page.locator('#rotate-dialog').getByRole('button', { name: 'Rotate the key' }).click();
    await ctx.page.waitForSelector('#new-discovery-key');
    await tab('Audit log').click();
    const who = ctx.page.locator('#view-audit tbody tr [data-col="who"]').first();
    await who.locator('.name', { hasText: 'Rick Sanchez (you)' }).waitFor();
    expect(await who.locator('.named').getAttribute('title')).toBe(`user id: ${RICK.id}`);
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
