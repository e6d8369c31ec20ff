// The console's Policies view in Chromium: Beth (a viewer: the view is read-only for everyone)
// opens rbac, sees the seeded image tagged latest and reads one of its files; after a changed
// image is pushed with the admin API she sees it become latest and diffs the two images; once the
// tenant signs its pushes, the signed image is marked as such (with its version), the others as
// unsigned.
// Screenshot: console-policies.png, in .data/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1, see console-browser.ts). Run with `npm run test:browser`.
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createPolicyImage, readPolicyFolder, signPolicyImage } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { admin } from '../integration/stack-client';
import { SCREENSHOTS, useConsoleInChromium } from './console-browser';

describe('console Policies view in Chromium', () => {
  const ctx = useConsoleInChromium();

  const row = (digest: string) => ctx.page.locator(`#view-policies tr[data-digest="${digest}"]`);

  it('opens rbac, shows latest, views a file, and diffs two images after a push through the admin API', async () => {
    const rbac = readPolicyFolder(join(loadConfig({}).policiesDir, 'rbac'));
    const seeded = createPolicyImage('rbac', rbac.files).digest;
    await ctx.browser.signIn('beth@the-smiths.com', 'Beth Smith');
    await ctx.page.getByRole('button', { name: 'Policies', exact: true }).click();
    await ctx.page.getByRole('button', { name: 'Open rbac' }).click();
    await row(seeded).locator('.badge', { hasText: 'latest' }).waitFor();

    await row(seeded).getByRole('button', { name: `View files of ${seeded}` }).click();
    await ctx.page.getByRole('button', { name: 'rbac.cedar', exact: true }).click();
    expect(await ctx.page.locator('#policy-file').textContent()).toBe(rbac.files['rbac.cedar']);

    const files = { ...rbac.files, 'rbac.cedar': rbac.files['rbac.cedar']!.replace('permit (', '// reviewed in the console\npermit (') };
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files })).status).toBe(201);
    const pushed = createPolicyImage('rbac', files).digest;
    await ctx.page.getByRole('button', { name: 'Open rbac' }).click();
    await row(pushed).locator('.badge', { hasText: 'latest' }).waitFor();
    expect(await row(seeded).locator('.badge').count()).toBe(0);

    // By default the older image against the newest.
    expect(await ctx.page.inputValue('#diff-from')).toBe(seeded);
    expect(await ctx.page.inputValue('#diff-to')).toBe(pushed);
    await ctx.page.getByRole('button', { name: 'Show diff' }).click();
    const diff = ctx.page.locator('#view-policies figure', { has: ctx.page.locator('figcaption', { hasText: 'rbac.cedar' }) });
    await diff.waitFor();
    expect(await ctx.page.locator('#view-policies figure').count()).toBe(1); // only rbac.cedar changed
    expect(await diff.locator('.add').allTextContents()).toEqual(['+ // reviewed in the console\n']);
    expect(await diff.locator('.del').count()).toBe(0);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-policies.png'), fullPage: true });
    expect(await row(pushed).locator('[data-signed]').textContent()).toBe('unsigned');
  });

  it('marks the signed image, with the version its signature signed, in the images and the list', async () => {
    const rbac = readPolicyFolder(join(loadConfig({}).policiesDir, 'rbac'));
    const { privateJwk, publicJwk } = await newSigningKey();
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'POST', '/api/v2/admin/signing-keys', { jwk: publicJwk })).status).toBe(201);
    const files = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// signed in the console test\n` };
    const signed = createPolicyImage('rbac', files);
    const signature = await signPolicyImage({ name: 'rbac', digest: signed.digest, version: 1 }, privateJwk);
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files, signature })).status).toBe(201);

    await ctx.page.getByRole('button', { name: 'Policies', exact: true }).click();
    await ctx.page.locator('#view-policies li[data-policy="rbac"] [data-signed="true"]', { hasText: 'signed' }).waitFor();
    expect(await ctx.page.locator('#view-policies li[data-policy="todo"] [data-signed]').count()).toBe(0);
    await ctx.page.getByRole('button', { name: 'Open rbac' }).click();
    await row(signed.digest).locator('.badge', { hasText: 'latest' }).waitFor();
    expect(await row(signed.digest).locator('[data-signed]').textContent()).toBe('signed v1');
    const marks = await ctx.page.locator('#view-policies tbody tr [data-signed]').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-signed')));
    expect(marks).toEqual(['true', 'false', 'false']);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-policies-signed.png'), fullPage: true });
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
