/**
 * Push on change (docs/reference/api.md, "Push on change"): the store tells committed changes
 * only (after the transaction, none on a rollback), and the push coalesces them into
 * broadcasts — one for a burst, exactly one more for changes that arrive while one runs, none
 * for a tenant that did not opt in. The relay is a fake whose broadcasts the test releases.
 */
import { join } from 'node:path';
import { silentLogger } from '../../src/observability';
import { readPolicyFolder } from '../../src/policy';
import { startPushOnChange, type TenantChange } from '../../src/control-plane';
import type { BroadcastFilter, BroadcastResult } from '../../src/relay-broadcast';
import type { CommandName } from '../../src/relay-protocol';
import { makeFixture, policiesDir, type Fixture } from './fixture';

interface Call {
  readonly tenantId: string;
  readonly command: CommandName;
  readonly filter: BroadcastFilter | undefined;
  release(result?: Partial<BroadcastResult> | Error): void;
}

const DONE: BroadcastResult = { sent: 1, confirmed: 1, failed: [], not_connected: 0 };

/** A store that emits what the test says, and a relay whose broadcasts wait for the test. */
function fakes(optedIn: ReadonlySet<string> = new Set(['t1'])) {
  const listeners = new Set<(change: TenantChange) => void>();
  const calls: Call[] = [];
  const callWaiters: (() => void)[] = [];
  const asked: string[] = [];
  const store = {
    onChange(listener: (change: TenantChange) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    tenants: {
      async pushOnChange(tenantId: string) {
        asked.push(tenantId);
        return optedIn.has(tenantId);
      },
    },
  };
  const relay = {
    broadcast(tenantId: string, command: CommandName, filter?: BroadcastFilter) {
      return new Promise<BroadcastResult>((resolve, reject) => {
        calls.push({ tenantId, command, filter, release: (r) => (r instanceof Error ? reject(r) : resolve({ ...DONE, ...r })) });
        callWaiters.splice(0).forEach((wake) => wake());
      });
    },
  };
  return {
    store,
    relay,
    calls,
    asked,
    emit: (change: TenantChange) => listeners.forEach((l) => l(change)),
    listening: () => listeners.size,
    /** Resolves once the `n`th broadcast has started. */
    async call(n: number): Promise<Call> {
      while (calls.length < n) await new Promise<void>((wake) => callWaiters.push(wake));
      return calls[n - 1]!;
    },
  };
}

describe('push on change: coalescing', () => {
  it('turns a burst of directory changes into one broadcast of sync_edge_directory to the edges behind', async () => {
    const f = fakes();
    const push = startPushOnChange({ store: f.store, broadcast: f.relay.broadcast, logger: silentLogger(), coalesceMs: 5 });
    for (let i = 0; i < 10; i += 1) f.emit({ tenantId: 't1', kind: 'directory' });
    const first = await f.call(1);
    expect({ tenantId: first.tenantId, command: first.command, filter: first.filter }).toEqual({ tenantId: 't1', command: 'sync_edge_directory', filter: { staleOnly: 'directory' } });
    first.release();
    await push.close();
    expect(f.calls).toHaveLength(1);
    expect(f.listening()).toBe(0);
  });

  it('runs exactly one more broadcast for the changes that arrive while one runs', async () => {
    const f = fakes();
    const push = startPushOnChange({ store: f.store, broadcast: f.relay.broadcast, logger: silentLogger(), coalesceMs: 5 });
    f.emit({ tenantId: 't1', kind: 'directory' });
    const first = await f.call(1);
    for (let i = 0; i < 5; i += 1) f.emit({ tenantId: 't1', kind: 'directory' });
    first.release();
    const second = await f.call(2);
    second.release();
    // A refused broadcast (here the tenant's limit) is logged; the next change still pushes.
    f.emit({ tenantId: 't1', kind: 'directory' });
    (await f.call(3)).release(Object.assign(new Error('this tenant already runs 4 broadcasts'), { code: 'too_many_broadcasts' }));
    f.emit({ tenantId: 't1', kind: 'directory' });
    (await f.call(4)).release();
    await push.close();
    expect(f.calls).toHaveLength(4);
  });

  it("pushes a policy to that policy's edges with discovery, apart from directory changes", async () => {
    const f = fakes();
    const push = startPushOnChange({ store: f.store, broadcast: f.relay.broadcast, logger: silentLogger(), coalesceMs: 5 });
    f.emit({ tenantId: 't1', kind: 'policy', policyName: 'rbac' });
    f.emit({ tenantId: 't1', kind: 'policy', policyName: 'todo' });
    f.emit({ tenantId: 't1', kind: 'directory' });
    await f.call(3);
    f.calls.forEach((c) => c.release());
    await push.close();
    expect(f.calls.map((c) => [c.command, c.filter]).sort()).toEqual([
      ['discovery', { policyName: 'rbac', staleOnly: 'policy' }],
      ['discovery', { policyName: 'todo', staleOnly: 'policy' }],
      ['sync_edge_directory', { staleOnly: 'directory' }],
    ]);
  });

  it('sends nothing for a tenant that did not opt in', async () => {
    const f = fakes(new Set());
    const push = startPushOnChange({ store: f.store, broadcast: f.relay.broadcast, logger: silentLogger(), coalesceMs: 5 });
    f.emit({ tenantId: 't2', kind: 'directory' });
    while (f.asked.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await push.close();
    expect(f.asked).toEqual(['t2']);
    expect(f.calls).toEqual([]);
  });

  it('drops what waits when closed', async () => {
    const f = fakes();
    const push = startPushOnChange({ store: f.store, broadcast: f.relay.broadcast, logger: silentLogger(), coalesceMs: 60_000 });
    f.emit({ tenantId: 't1', kind: 'directory' });
    await push.close();
    f.emit({ tenantId: 't1', kind: 'directory' });
    expect(f.calls).toEqual([]);
  });
});

describe('the store tells committed changes only', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(() => fx.close());

  it('tells a directory change and a policy push once committed, with the new state readable', async () => {
    const seen: [TenantChange, number | undefined][] = [];
    const stop = fx.store.onChange((change) => {
      void fx.store.directory.revision(change.tenantId).then((revision) => seen.push([change, revision]));
    });
    const tenantId = fx.demo.tenant_id;
    await fx.store.transaction(async (tx) => {
      await tx.directory.change(tenantId, { op: 'role.grant', user_id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02', role: 'admin' });
      // Not yet: the transaction has not committed.
      expect(seen).toEqual([]);
    });
    await fx.store.directory.change(tenantId, { op: 'role.revoke', user_id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02', role: 'admin' });
    await fx.store.images.push(tenantId, readPolicyFolder(join(policiesDir, 'rbac')));
    while (seen.length < 3) await new Promise((resolve) => setImmediate(resolve));
    stop();
    expect(seen).toEqual([
      [{ tenantId, kind: 'directory' }, 2],
      [{ tenantId, kind: 'directory' }, 3],
      [{ tenantId, kind: 'policy', policyName: 'rbac' }, 3],
    ]);
  });

  it('tells nothing for a transaction that rolled back or a change the directory refused', async () => {
    const seen: TenantChange[] = [];
    fx.store.onChange((change) => seen.push(change));
    const tenantId = fx.demo.tenant_id;
    await expect(
      fx.store.transaction(async (tx) => {
        await tx.directory.change(tenantId, { op: 'role.grant', user_id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02', role: 'admin' });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(fx.store.directory.change(tenantId, { op: 'role.grant', user_id: 'no-such-user', role: 'admin' })).rejects.toMatchObject({ status: 404 });
    expect(seen).toEqual([]);
    expect(await fx.store.directory.revision(tenantId)).toBe(1);
  });
});
