// The console's Connections, Organization management / Account settings and Audit log views in
// Chromium: Rick finds the tenant id and the connection ids, rotates the Discovery API key
// (after a confirmation), copies it and uses it in a real exec, runs the page's own curl as
// pasted, manages the organization's members, and sees every change in the audit log; Beth (a
// viewer) sees the same facts without the controls, and the server refuses her forged rotation.
// Screenshots: console-{connections,organization,account,audit}.png, in .data/screenshots/
// (docs/screenshots/ with UPDATE_SCREENSHOTS=1, see console-browser.ts). Run with
// `npm run test:browser`.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exec, listRegistrations } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

const RICK = { email: 'rick@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01' };
const MORTY_ID = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02';
const SUMMER_ID = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e03';
/** Summer as the page names her once she is a member: from the demo directory. */
const SUMMER = 'Summer Smith (summer@the-smiths.com)';
const BETH = { email: 'beth@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e04' };

describe('console settings views in Chromium', () => {
  const ctx = useConsoleInChromium();
  let newKey: string;

  const tab = (name: string) => ctx.page.locator('#views button', { hasText: name });
  const clipboard = () => ctx.page.evaluate('navigator.clipboard.readText()') as Promise<string>;

  it('shows Rick the tenant id, the connection ids and that a Discovery API key exists', async () => {
    await ctx.browser.signIn(RICK.email, 'Rick Sanchez');
    await tab('Connections').click();
    const view = ctx.page.locator('#view-connections');
    await view.locator('.key').waitFor();
    expect(await view.locator('.facts code').textContent()).toBe(ctx.stack.demo.tenantId);
    expect(await view.locator('.plain li code').allTextContents()).toContain(ctx.stack.demo.connectionId);
    expect(await view.locator('.key').textContent()).toContain('A Discovery API key exists');
    expect(await view.locator('pre').first().textContent()).toContain(`-H 'service-tenant-id: ${ctx.stack.demo.tenantId}'`);
    await view.getByRole('button', { name: `Copy tenant id ${ctx.stack.demo.tenantId}` }).click();
    expect(await clipboard()).toBe(ctx.stack.demo.tenantId);
  });

  it('rotates the key only after the confirmation, shows the new one once, and it works in a real exec', async () => {
    const view = ctx.page.locator('#view-connections');
    await view.getByRole('button', { name: 'Rotate Discovery API key…' }).click();
    await ctx.page.locator('#rotate-dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await ctx.page.isVisible('#rotate-dialog')).toBe(false);
    expect((await listRegistrations(ctx.stack.url, ctx.stack.demo)).status).toBe(200);

    await view.getByRole('button', { name: 'Rotate Discovery API key…' }).click();
    await ctx.page.locator('#rotate-dialog').getByRole('button', { name: 'Rotate the key' }).click();
    await ctx.page.waitForSelector('#new-discovery-key');
    newKey = (await ctx.page.textContent('#new-discovery-key'))!;
    await view.getByRole('button', { name: 'Copy Discovery API key' }).click();
    expect(await clipboard()).toBe(newKey);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-connections.png'), fullPage: true });

    const withNewKey = await exec(ctx.stack.url, ctx.stack.demo, ctx.stack.edge.instanceId, 'sync_edge_directory', { key: newKey });
    expect({ status: withNewKey.status, body: withNewKey.body }).toEqual({ status: 200, body: { result: {} } });
    expect((await listRegistrations(ctx.stack.url, ctx.stack.demo)).status).toBe(401);
  });

  it("fills the curl commands with the real tenant id, key and instance id: the page's exec curl runs as pasted", async () => {
    const view = ctx.page.locator('#view-connections');
    await view.getByRole('button', { name: 'Copy curl to sync the edge directory (exec)' }).click();
    const curl = await clipboard();
    expect(curl).toContain(newKey);
    expect(curl).toContain(ctx.stack.edge.instanceId);
    const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
    expect(JSON.parse(stdout)).toEqual({ result: {} });
  });

  it('lets Rick (owner) see and manage the organization: add, change and remove a member', async () => {
    await tab('Organization management').click();
    const view = ctx.page.locator('#view-account');
    await view.locator('#tenant-id').waitFor();
    expect(await view.locator('h2').textContent()).toBe('Organization management');
    expect(await view.locator('#tenant-id').textContent()).toBe(ctx.stack.demo.tenantId);
    const roles = async () => Object.fromEntries(await view.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-member'), r.children[1]!.textContent])));
    expect(await roles()).toEqual({ [RICK.id]: 'owner', [MORTY_ID]: 'admin', [BETH.id]: 'viewer' });

    await view.locator('#new-member').fill(SUMMER_ID);
    await view.locator('#new-member-role').selectOption('viewer');
    await view.getByRole('button', { name: 'Add member' }).click();
    await view.locator('.result', { hasText: `${SUMMER_ID} added as viewer` }).waitFor();
    expect((await roles())[SUMMER_ID]).toBe('viewer');
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-organization.png'), fullPage: true });

    const summer = view.locator(`tr[data-member="${SUMMER_ID}"]`);
    await summer.getByRole('combobox').selectOption('admin');
    await summer.getByRole('button', { name: 'Change role' }).click();
    await view.locator('.result', { hasText: `${SUMMER} is now admin` }).waitFor();
    expect((await roles())[SUMMER_ID]).toBe('admin');

    // The server keeps an owner: demoting the only one is refused, and the refusal is shown.
    const rick = view.locator(`tr[data-member="${RICK.id}"]`);
    await rick.getByRole('combobox').selectOption('viewer');
    await rick.getByRole('button', { name: 'Change role' }).click();
    await view.locator('.result.error', { hasText: '409' }).waitFor();
    expect((await roles())[RICK.id]).toBe('owner');

    await view.getByRole('button', { name: `Remove ${SUMMER}` }).click();
    await view.locator('.result', { hasText: `${SUMMER} removed` }).waitFor();
    expect(Object.keys(await roles())).not.toContain(SUMMER_ID);
  });

  it('shows a personal account as Account settings, without members', async () => {
    const personal = await ctx.page.locator('#tenant option', { hasText: 'personal' }).getAttribute('value');
    await ctx.page.selectOption('#tenant', personal!);
    const view = ctx.page.locator('#view-account');
    await view.locator('#tenant-id', { hasText: personal! }).waitFor();
    expect(await tab('Account settings').count()).toBe(1);
    expect(await view.locator('h2').textContent()).toBe('Account settings');
    expect(await view.locator('.facts').textContent()).toContain('personal account');
    expect(await view.locator('table').count()).toBe(0);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-account.png') });
    await ctx.page.selectOption('#tenant', ctx.stack.demo.tenantId);
  });

  it('lists every change in the audit log: who, what, target (by name, the id to copy), outcome', async () => {
    await tab('Audit log').click();
    const view = ctx.page.locator('#view-audit');
    await view.locator('tbody tr').first().waitFor();
    // Who and target by name (the user id in the title), action, outcome.
    const entries = await view.locator('tbody tr').evaluateAll((rows) =>
      rows.map((r) => ['who', 'action', 'target', 'outcome'].map((col) => {
        const cell = r.querySelector(`[data-col="${col}"]`)!;
        const named = cell.querySelector('.named');
        return named ? `${named.querySelector('.name')?.textContent} [${named.getAttribute('data-id')}]` : cell.textContent;
      })),
    );
    const rick = `Rick Sanchez [${RICK.id}]`;
    const summer = `Summer Smith [${SUMMER_ID}]`;
    expect(entries).toEqual([
      [rick, 'member.remove', summer, 'ok'],
      [rick, 'member.set.admin', summer, 'ok'],
      [rick, 'member.set.viewer', summer, 'ok'],
      [rick, 'discovery_key.rotate', '—', 'ok'],
    ]);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-audit.png') });
    await ctx.browser.signOut();
  });

  it('shows Beth (a viewer) the facts without controls, and refuses her forged rotation', async () => {
    await ctx.browser.signIn(BETH.email, 'Beth Smith');
    await tab('Connections').click();
    await ctx.page.locator('#view-connections .key').waitFor();
    expect(await ctx.page.locator('#view-connections button.rotate').count()).toBe(0);
    await tab('Organization management').click();
    await ctx.page.locator('#view-account tbody tr').first().waitFor();
    expect(await ctx.page.locator('#view-account select, #view-account form').count()).toBe(0);
    const forged = await ctx.page.evaluate(`(async () => {
      const { api } = await import('/console/api.js');
      try {
        await api('POST', '/tenants/${ctx.stack.demo.tenantId}/discovery-key/rotate');
        return { status: 200 };
      } catch (err) {
        return { status: err.status, code: err.code };
      }
    })()`);
    expect(forged).toEqual({ status: 403, code: 'forbidden' });
    const stillWorks = await exec(ctx.stack.url, ctx.stack.demo, ctx.stack.edge.instanceId, 'discovery', { key: newKey });
    expect(stillWorks.status).toBe(200);
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors.filter((m) => !m.startsWith('Failed to load resource'))).toEqual([]);
  });
});
