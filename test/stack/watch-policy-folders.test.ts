/**
 * `npm run dev`'s policy watch (src/stack/watch-policy-folders.ts): a saved policy folder is
 * pushed through the control plane's admin API as it is saved, and the RBAC app's answer
 * changes once its edge takes the image. Real files, a real control plane (SQLite), edge and
 * app (test/integration/stack-fixture.ts); every wait is on an event the watch reports.
 */
import { cpSync, mkdtempSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import type { PolicyFolderSync } from '../../src/config';
import { readPolicyFolder } from '../../src/policy';
import { adminApiRegistry } from '../../src/stack/admin-api-registry';
import { describeSavedFolder, watchPolicyFolders, type PolicyFolderWatch } from '../../src/stack/watch-policy-folders';
import { callResource, exec } from '../integration/stack-client';
import { startStack, type Stack } from '../integration/stack-fixture';

describe('with the stack up', () => {
  let stack: Stack;
  let policies: string;
  let watch: PolicyFolderWatch | undefined;
  /** Each handled save, in order; `next()` resolves with the next one. */
  let results: PolicyFolderSync[];
  let waiting: ((r: PolicyFolderSync) => void)[];

  beforeEach(async () => {
    stack = await startStack();
    policies = mkdtempSync(join(tmpdir(), 'outpost-watch-'));
    cpSync(join(stack.config.policiesDir, 'rbac'), join(policies, 'rbac'), { recursive: true });
    results = [];
    waiting = [];
    watch = watchPolicyFolders({
      policiesDir: policies,
      names: ['rbac'],
      registry: adminApiRegistry({ relayUrl: stack.relayUrl, tenantId: stack.demo.tenantId, adminApiKey: stack.demo.adminApiKey }),
      edgesPinKeys: false,
      onSync: (r) => {
        results.push(r);
        waiting.shift()?.(r);
      },
      // A failed call comes back as a refusal the assertions then show.
      onError: (folder, err) => waiting.shift()?.({ kind: 'refused', folder, name: 'rbac', reason: err.message }),
    });
  });
  afterEach(async () => {
    watch?.close();
    await stack?.close();
    rmSync(policies, { recursive: true, force: true });
  });

  /** The next save the watch handles (bounded by Jest's test timeout, not a sleep). */
  const next = () => new Promise<PolicyFolderSync>((resolve) => waiting.push(resolve));
  const save = (files: Readonly<Record<string, string>>) => {
    for (const [path, text] of Object.entries(files)) writeFileSync(join(policies, 'rbac', path), text);
  };
  const mortyDeletes = async () => (await callResource(stack.appUrl, 'DELETE', 'mega-seed', (await stack.idp.token('morty@the-citadel.com')).access_token)).status;
  const latest = async () => (await stack.store.images.latest(stack.demo.tenantId)).find((i) => i.name === 'rbac')!.digest;

  it('pushes a folder as it is saved: the edge takes it and Morty, an editor, may DELETE; a save that changes nothing pushes nothing', async () => {
    expect(await mortyDeletes()).toBe(403);
    const pushed = next();
    save(letEditorsDelete(readPolicyFolder(join(policies, 'rbac')).files));
    const result = await pushed;
    const digest = readPolicyFolder(join(policies, 'rbac')).digest;
    expect(result).toMatchObject({ kind: 'pushed', folder: 'policies/rbac', digest });
    expect(describeSavedFolder(result)).toMatch(/^pushed policies\/rbac: changed since the image the edges hold/);
    expect(await latest()).toBe(digest);
    // The control plane took it as an admin push (push on change tells the edges; here the test does).
    expect((await exec(stack.relayUrl, stack.demo, stack.edge.instanceId, 'discovery')).status).toBe(200);
    expect(await mortyDeletes()).toBe(200);

    // Saved again as it is: the same image, no new version.
    const again = next();
    save({ 'rbac.cedar': readPolicyFolder(join(policies, 'rbac')).files['rbac.cedar']! });
    expect(await again).toEqual({ kind: 'unchanged', folder: 'policies/rbac', name: 'rbac' });
    expect(await stack.store.images.versions(stack.demo.tenantId, 'rbac')).toHaveLength(2);
  });

  it('pushes nothing of a saved folder that does not compile, and names file:line; the edge keeps deciding', async () => {
    const before = await latest();
    const refused = next();
    save({ 'rbac.cedar': 'permit (principal, action, resource) when { ;\n' });
    const result = await refused;
    expect(result.kind).toBe('invalid');
    expect(describeSavedFolder(result)).toMatch(/^NOT pushed policies\/rbac: the edges keep the image they hold; fix:\n {4}policies\/rbac\/rbac\.cedar:1/);
    expect(await latest()).toBe(before);
    expect(await mortyDeletes()).toBe(403);
  });
});

describe('with the control plane down', () => {
  it('says the save could not be pushed, and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-watch-down-'));
    cpSync(join(__dirname, '..', '..', 'policies', 'rbac'), join(dir, 'rbac'), { recursive: true });
    // A port nothing listens on: freePort's socket is closed before it returns.
    const relayUrl = `http://127.0.0.1:${await freePort()}`;
    const errors: { folder: string; message: string }[] = [];
    let told!: () => void;
    const down = watchPolicyFolders({
      policiesDir: dir,
      names: ['rbac'],
      registry: adminApiRegistry({ relayUrl, tenantId: 't', adminApiKey: 'k' }),
      edgesPinKeys: false,
      onSync: (r) => errors.push({ folder: r.folder, message: `unexpected ${r.kind}` }),
      onError: (folder, err) => {
        errors.push({ folder, message: err.message });
        told();
      },
    });
    try {
      const failed = new Promise<void>((resolve) => (told = resolve));
      writeFileSync(join(dir, 'rbac', 'rbac.cedar'), '// saved while the control plane is down\n', { flag: 'a' });
      await failed;
      expect(errors).toEqual([{ folder: 'policies/rbac', message: expect.stringMatching(/^could not ask the control plane \(.+\); save again once it answers$/) }]);
    } finally {
      down.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends a watch that fails (an inotify limit) with a line, instead of an error that would stop the launcher', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-watch-fails-'));
    let watcher!: FSWatcher;
    const lines: string[] = [];
    const failing = watchPolicyFolders({
      policiesDir: dir,
      names: ['rbac'],
      registry: adminApiRegistry({ relayUrl: 'http://127.0.0.1:1', tenantId: 't', adminApiKey: 'k' }),
      edgesPinKeys: false,
      onSync: () => undefined,
      onError: (folder, err) => lines.push(`${folder}: ${err.message}`),
      watchFolder: (path, listener) => (watcher = watch(path, { recursive: true }, listener)),
    });
    try {
      // What Node does when the kernel refuses a watch: an 'error' event (unhandled, it throws).
      watcher.emit('error', Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }));
      expect(lines).toEqual(['policies/: stopped watching (ENOSPC: System limit for number of file watchers reached); the next start pushes what changed']);
    } finally {
      failing.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
