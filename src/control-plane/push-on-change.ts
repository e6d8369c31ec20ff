import type { Logger } from '../observability';
import type { CommandName } from '../relay-protocol';
import type { ControlPlaneStore } from './control-plane-store';
import type { TenantChange } from './note-changes';

/**
 * How long a change waits for others before its broadcast starts: a burst of changes (a script
 * granting ten roles) becomes one broadcast, and one command per edge. A change arriving while
 * that broadcast runs gets exactly one more after it.
 */
export const PUSH_COALESCE_MS = 50;

/** Dependencies of {@link startPushOnChange}. */
export interface PushOnChangeDeps {
  /**
   * Where committed changes come from (`onChange`), and each tenant's opt-in
   * (`tenants.pushOnChange`), read when its broadcast is about to start.
   */
  readonly store: { onChange: ControlPlaneStore['onChange']; readonly tenants: Pick<ControlPlaneStore['tenants'], 'pushOnChange'> };
  /**
   * The tenant-wide broadcast (docs/reference/api.md, "Broadcast"): a platform plug-in of the
   * relay (src/relay-broadcast), handed in by the control plane's process.
   */
  readonly broadcast: PushBroadcast;
  readonly logger: Logger;
  readonly coalesceMs?: number;
}

/** Which edges a push is for: one policy's, and only those behind in what changed. */
export interface PushFilter {
  readonly policyName?: string;
  readonly staleOnly: 'policy' | 'directory';
}

/** What push on change asks of the broadcast, and reads of its answer. */
export type PushBroadcast = (
  tenantId: string,
  command: CommandName,
  filter: PushFilter,
) => Promise<{ readonly sent: number; readonly confirmed: number; readonly failed: readonly unknown[]; readonly not_connected: number }>;

/** The running push; see {@link startPushOnChange}. */
export interface PushOnChange {
  /**
   * Stops listening and drops what waits at once; resolves once the running broadcasts have
   * ended (close the relay meanwhile, and they end with it).
   */
  close(): Promise<void>;
}

/** What a change asks of the edges: a directory change → `sync_edge_directory` to all; a push → `discovery` to that policy's edges. */
function pushOf(change: TenantChange): { key: string; command: CommandName; filter: PushFilter } {
  // Only edges behind in what changed: a follow-up broadcast skips the ones the first brought up to date.
  if (change.kind === 'directory') return { key: `${change.tenantId}\u0000directory`, command: 'sync_edge_directory', filter: { staleOnly: 'directory' } };
  return {
    key: `${change.tenantId}\u0000policy\u0000${change.policyName}`,
    command: 'discovery',
    filter: { policyName: change.policyName, staleOnly: 'policy' },
  };
}

interface Pending {
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  again: boolean;
}

/**
 * Push on change (docs/reference/api.md, "Push on change"): for a tenant that opted in, each
 * committed directory change or policy push is broadcast to its edges by itself, coalesced per
 * tenant and kind (and policy): at most one broadcast waits and one runs at a time. The edges'
 * timers stay the safety net: a broadcast that fails (the relay closing, Redis down, the
 * tenant's broadcast limit) is logged and not retried, and an edge that missed one syncs on
 * its next timer or reconnect.
 */
export function startPushOnChange(deps: PushOnChangeDeps): PushOnChange {
  const coalesceMs = deps.coalesceMs ?? PUSH_COALESCE_MS;
  const log = deps.logger.child({ component: 'push-on-change' });
  const pending = new Map<string, Pending>();
  let closed = false;

  async function run(tenantId: string, command: CommandName, filter: PushFilter): Promise<void> {
    try {
      if (!(await deps.store.tenants.pushOnChange(tenantId))) return;
      const result = await deps.broadcast(tenantId, command, filter);
      const failed = result.failed.length;
      log[failed === 0 ? 'info' : 'warn'](
        { tenant_id: tenantId, command, sent: result.sent, confirmed: result.confirmed, failed, not_connected: result.not_connected },
        'pushed a change to the edges',
      );
    } catch (err) {
      log.warn({ tenant_id: tenantId, command, err_code: (err as { code?: unknown }).code, err: (err as Error).message }, 'push on change failed; the edges sync on their timers');
    }
  }

  function start(key: string, tenantId: string, command: CommandName, filter: PushFilter, entry: Pending): void {
    entry.timer = undefined;
    entry.running = run(tenantId, command, filter).finally(() => {
      entry.running = undefined;
      if (entry.again && !closed) {
        entry.again = false;
        schedule(key, tenantId, command, filter, entry);
      } else if (entry.timer === undefined) {
        pending.delete(key);
      }
    });
  }

  function schedule(key: string, tenantId: string, command: CommandName, filter: PushFilter, entry: Pending): void {
    entry.timer = setTimeout(() => start(key, tenantId, command, filter, entry), coalesceMs);
  }

  const stop = deps.store.onChange((change) => {
    if (closed) return;
    const { key, command, filter } = pushOf(change);
    let entry = pending.get(key);
    if (entry === undefined) {
      entry = { again: false };
      pending.set(key, entry);
    }
    if (entry.timer !== undefined) return; // already waiting: this change rides along
    if (entry.running !== undefined) {
      entry.again = true; // one more after the running one
      return;
    }
    schedule(key, change.tenantId, command, filter, entry);
  });

  return {
    close() {
      closed = true;
      stop();
      const running: Promise<void>[] = [];
      for (const entry of pending.values()) {
        if (entry.timer !== undefined) clearTimeout(entry.timer);
        entry.timer = undefined;
        entry.again = false;
        if (entry.running) running.push(entry.running);
      }
      pending.clear();
      return Promise.all(running).then(() => undefined);
    },
  };
}
