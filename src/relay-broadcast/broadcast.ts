import { edgeDrift, memoizeDesiredState, type DesiredStateLookup } from '../edge-drift';
import { httpError, type HttpError } from '../http';
import { sendToLocalEdges, type FailedEdge, type Registration, type RelayView, type SendOutcome } from '../relay';
import { BROADCAST_LIMITS, type CommandName } from '../relay-protocol';
import type { BroadcastFilter } from './parse-broadcast-request';

/** Registrations read per step while the targets are chosen. */
const SELECT_PAGE = 1000;

/** The answer of `POST …/broadcast` (docs/reference/api.md, "Broadcast"): `{"result": …}`. */
export interface BroadcastResult {
  /** Connected edges the command was sent to. */
  readonly sent: number;
  /** Of those, the ones that confirmed before the deadline. */
  readonly confirmed: number;
  /** The others, each with exec's error code for the same outcome (sorted by id). */
  readonly failed: FailedEdge[];
  /** Registered edges matching the filter that no node holds a socket for. */
  readonly not_connected: number;
}

/** Dependencies of {@link createBroadcaster}: the relay's view (relay-extension.ts) and what each edge should run. */
export interface BroadcasterDeps extends Pick<RelayView, 'registrations' | 'links' | 'local' | 'cluster' | 'checkOpen'> {
  readonly desiredState: DesiredStateLookup;
  /** The deadline: the exec timeout. */
  readonly timeoutMs: number;
  /** Connected edges one broadcast may reach (default {@link BROADCAST_LIMITS}.maxEdges). */
  readonly maxEdges?: number;
  /** Monotonic milliseconds (default `performance.now`), for the deadline. */
  readonly clock?: () => number;
}

/** 429: the tenant already runs as many broadcasts on this node as it may. */
export function tooManyBroadcasts(): HttpError {
  return httpError('too_many_broadcasts', `this tenant already runs ${BROADCAST_LIMITS.maxConcurrentPerTenant} broadcasts`);
}

/** 409: more connected edges match than one broadcast may reach. */
export function tooManyEdges(max: number = BROADCAST_LIMITS.maxEdges): HttpError {
  return httpError('too_many_edges', `more than ${max} connected edges match; narrow the broadcast with filter.policy_name or filter.stale_only`);
}

/** Whether a registration matches the filter (stale: its digest is not `latest`, or its revision is behind). */
async function matches(r: Registration, filter: BroadcastFilter, desired: DesiredStateLookup): Promise<boolean> {
  if (filter.policyName !== undefined && r.policyName !== filter.policyName) return false;
  if (!filter.staleOnly) return true;
  const drift = edgeDrift(r, await desired(r.tenantId, r.connectionId));
  if (filter.staleOnly === 'policy') return drift.policyDrift;
  if (filter.staleOnly === 'directory') return drift.directoryLag > 0;
  return drift.policyDrift || drift.directoryLag > 0;
}

/**
 * The relay's tenant-wide command: picks the tenant's registrations matching the filter
 * (only the caller's tenant is ever read), splits the connected ones by the node holding
 * their socket, sends the command to all at once — this node's directly, each other node's
 * in one routed request per 512 — and answers once every edge confirmed, failed, or the
 * deadline (counted from the call) passed. An edge that does not answer in time is failed
 * with `edge_timeout`; nothing waits longer.
 */
export function createBroadcaster(deps: BroadcasterDeps) {
  const clock = deps.clock ?? (() => performance.now());
  const maxEdges = deps.maxEdges ?? BROADCAST_LIMITS.maxEdges;
  if (!(Number.isInteger(maxEdges) && maxEdges > 0) || !(deps.timeoutMs > 0)) throw new Error('maxEdges and timeoutMs must be positive');
  const running = new Map<string, number>();

  async function targets(tenantId: string, filter: BroadcastFilter) {
    const desired = memoizeDesiredState(deps.desiredState);
    const byNode = new Map<string | undefined, string[]>();
    let sent = 0;
    let notConnected = 0;
    let after: string | undefined;
    for (;;) {
      const rows = await deps.registrations.listForTenant(tenantId, { limit: SELECT_PAGE, ...(after === undefined ? {} : { after }) });
      const picked: string[] = [];
      for (const r of rows) if (await matches(r, filter, desired)) picked.push(r.instanceId);
      const links = await deps.links(tenantId, picked);
      for (let i = 0; i < picked.length; i += 1) {
        const link = links[i]!;
        if (!link.connected) {
          notConnected += 1;
          continue;
        }
        sent += 1;
        if (sent > maxEdges) throw tooManyEdges(maxEdges);
        // Outside cluster mode `node` is absent; this node's own id means "here" too.
        const owner = link.node === undefined || link.node === deps.cluster?.node ? undefined : (link.node ?? undefined);
        const group = byNode.get(owner);
        if (group) group.push(picked[i]!);
        else byNode.set(owner, [picked[i]!]);
      }
      if (rows.length < SELECT_PAGE) break;
      after = rows[rows.length - 1]!.instanceId;
    }
    return { byNode, sent, notConnected };
  }

  return async function broadcast(tenantId: string, command: CommandName, filter: BroadcastFilter): Promise<BroadcastResult> {
    deps.checkOpen();
    const started = clock();
    const count = running.get(tenantId) ?? 0;
    if (count >= BROADCAST_LIMITS.maxConcurrentPerTenant) throw tooManyBroadcasts();
    running.set(tenantId, count + 1);
    try {
      const { byNode, sent, notConnected } = await targets(tenantId, filter);
      const remaining = Math.floor(deps.timeoutMs - (clock() - started));
      const parts: Promise<SendOutcome>[] = [];
      for (const [owner, ids] of byNode) {
        if (remaining <= 0) parts.push(Promise.resolve({ confirmed: 0, failed: ids.map((id) => ({ id, code: 'edge_timeout' })) }));
        else if (owner === undefined) parts.push(sendToLocalEdges(ids, (id) => deps.local({ tenantId, instanceId: id }), command, remaining));
        else parts.push(deps.cluster!.sendMany(owner, tenantId, ids, command, remaining));
      }
      let confirmed = 0;
      const failed: FailedEdge[] = [];
      for (const part of await Promise.all(parts)) {
        confirmed += part.confirmed;
        failed.push(...part.failed);
      }
      failed.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      return { sent, confirmed, failed, not_connected: notConnected };
    } finally {
      const left = (running.get(tenantId) ?? 1) - 1;
      if (left > 0) running.set(tenantId, left);
      else running.delete(tenantId);
    }
  };
}

/** The function {@link createBroadcaster} returns. */
export type Broadcast = ReturnType<typeof createBroadcaster>;
