// Creating an edge connection from the console's Connections view in Chromium: Rick (an owner)
// is asked to choose a policy (none is chosen for him), creates one for rbac, the page shows its secret once with a copy button, and the store
// takes it as that connection's credential; once the view is left the secret is gone for
// good. Beth (a viewer) gets no form. Run with `npm run test:browser`.
import { useConsoleInChromium } from './console-browser';

describe('console: create a connection in Chromium', () => {
  const ctx = useConsoleInChromium();

  const view = () => ctx.page.locator('#view-connections');
  const openConnections = async () => {
    await ctx.page.getByRole('button', { name: 'Connections', exact: true }).click();
    await view().locator('.key').waitFor();
  };

  it('lets Rick create a connection and shows its secret once, with a copy button; the secret is a working credential', async () => {
    await ctx.browser.signIn('rick@the-citadel.com', 'Rick Sanchez');
    await openConnections();
    // No policy until one is chosen (not the first by name, a conformance fixture): the form asks for one.
    const policy = view().locator('#new-connection-policy');
    expect(await policy.inputValue()).toBe('');
    expect(await policy.locator('option:checked').textContent()).toBe('choose a policy…');
    const before = (await ctx.stack.store.tenants.get(ctx.stack.demo.tenantId))!.connections.length;
    await view().getByRole('button', { name: 'Create connection' }).click();
    expect(await view().locator('#new-connection-policy:invalid').count()).toBe(1); // required, nothing chosen: the form was not sent
    expect(await ctx.page.locator('#new-connection-secret').count()).toBe(0);
    await policy.selectOption('rbac');
    await view().getByRole('button', { name: 'Create connection' }).click();
    await ctx.page.waitForSelector('#new-connection-secret');
    const secret = (await ctx.page.textContent('#new-connection-secret'))!;
    expect(secret).toMatch(/^cs_/);
    await view().getByRole('button', { name: 'Copy connection secret' }).click();
    expect(await ctx.page.evaluate('navigator.clipboard.readText()')).toBe(secret);

    const { connections } = (await ctx.stack.store.tenants.get(ctx.stack.demo.tenantId))!;
    expect(connections).toHaveLength(before + 1); // the refused click made none
    const created = connections.at(-1)!;
    expect(await view().locator('.plain li code').allTextContents()).toContain(created.connectionId);
    expect(await ctx.stack.store.tenants.verifyConnection(created.connectionId, secret)).toEqual({ tenantId: ctx.stack.demo.tenantId, connectionId: created.connectionId, policyName: 'rbac' });
    expect((await ctx.stack.store.audit.list(ctx.stack.demo.tenantId))[0]).toMatchObject({ action: 'connection.create', target: created.connectionId, outcome: 'ok' });

    // Shown once: leaving and coming back lists the connection, never its secret.
    await ctx.page.getByRole('button', { name: 'Authorizers', exact: true }).click();
    await openConnections();
    expect(await view().locator('.plain li code').allTextContents()).toContain(created.connectionId);
    expect(await ctx.page.locator('#new-connection-secret').count()).toBe(0);
    expect(await ctx.page.content()).not.toContain(secret);
    await ctx.browser.signOut();
  });

  it('gives Beth (a viewer) no form to create one', async () => {
    await ctx.browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await openConnections();
    expect(await view().getByRole('button', { name: 'Create connection' }).count()).toBe(0);
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
