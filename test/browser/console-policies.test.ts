// The console's Policies view in Chromium: Beth (a viewer: the view is read-only for everyone)
// opens rbac, sees the seeded image tagged latest and reads one of its files; after a changed
// image is pushed with the admin API she sees it become latest and diffs the two images; the image
// `npm run demo` pushes diffs as the lines it changes, long unchanged runs folded; once the
// tenant signs its pushes, the signed image is marked as such (with its version), the others as
// unsigned.
// Screenshot: console-policies.png, in .data/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1, see console-browser.ts). Run with `npm run test:browser`.
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createPolicyImage, readPolicyFolder, signPolicyImage } from '../../src/policy';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
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

  it('diffs the image npm run demo pushes as the lines it changes, the unchanged runs folded until opened', async () => {
    const rbac = readPolicyFolder(join(loadConfig({}).policiesDir, 'rbac'));
    const seeded = createPolicyImage('rbac', rbac.files).digest;
    const files = letEditorsDelete(rbac.files);
    expect((await admin(ctx.stack.url, ctx.stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files })).status).toBe(201);
    const demo = createPolicyImage('rbac', files).digest;
    await ctx.page.getByRole('button', { name: 'Open rbac' }).click();
    await row(demo).locator('.badge', { hasText: 'latest' }).waitFor();
    await ctx.page.selectOption('#diff-from', seeded);
    await ctx.page.selectOption('#diff-to', demo);
    await ctx.page.getByRole('button', { name: 'Show diff' }).click();
    const figure = (path: string) => ctx.page.locator('#view-policies figure', { has: ctx.page.locator('figcaption', { hasText: path }) });
    const tests = figure('tests/citadel-directory.json');
    await tests.waitFor();
    // The two lines of each case that changed, each with the three lines around it; the rest folded.
    expect(await tests.locator('.del').allTextContents()).toEqual([
      '-     "name": "Morty Smith (editor) may not DELETE",\n',
      '-     "decision": "deny"\n',
      '-     "name": "Summer Smith (editor) may not DELETE",\n',
      '-     "decision": "deny"\n',
    ]);
    expect(await tests.locator('.add').allTextContents()).toEqual([
      '+     "name": "Morty Smith (editor) may DELETE",\n',
      '+     "decision": "allow"\n',
      '+     "name": "Summer Smith (editor) may DELETE",\n',
      '+     "decision": "allow"\n',
    ]);
    const lines = rbac.files['tests/citadel-directory.json']!.split('\n').length;
    const folds = await tests.locator('button.fold').allTextContents();
    const folded = folds.map((text) => Number(/^… (\d+) unchanged lines …$/.exec(text)![1]));
    expect(folded.length).toBeGreaterThan(0);
    // Every line of the file is there once: shown (kept or changed) or folded.
    expect((await tests.locator('span.line:not(.add)').count()) + folded.reduce((a, b) => a + b, 0)).toBe(lines);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-policies-demo-diff.png'), fullPage: true });

    // A fold opens in place: its lines, unchanged, where the button was.
    const before = await tests.locator('span.line').count();
    await tests.locator('button.fold').first().click();
    expect(await tests.locator('button.fold').count()).toBe(folds.length - 1);
    expect(await tests.locator('span.line').count()).toBe(before + folded[0]!);
    expect(await tests.locator('span.line').first().textContent()).toBe(`  ${rbac.files['tests/citadel-directory.json']!.split('\n')[0]}\n`);
    // A new file is all added, nothing to fold.
    expect(await figure('editors-delete.cedar').locator('button.fold').count()).toBe(0);
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
    expect(marks).toEqual(['true', 'false', 'false', 'false']);
    await ctx.page.screenshot({ path: join(SCREENSHOTS, 'console-policies-signed.png'), fullPage: true });
    await ctx.browser.signOut();
    expect(ctx.browser.consoleErrors).toEqual([]);
  });
});
