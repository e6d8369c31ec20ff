import type { Redis } from 'ioredis';
import type { EdgeStatus } from '../relay-protocol';
import {
  CLOSE_CODES,
  failureCode,
  instanceNotConnected,
  parseRoutedOutcome,
  parseRoutedTryResult,
  sendToLocalEdges,
  type ClusterJoinDeps,
  type ClusterNode,
  type DecisionSampleReply,
  type EdgeSession,
  type InstanceKey,
  type SendOutcome,
} from '../relay';
import { MAX_BUS_BROADCAST_IDS, type BusRequest } from './bus-messages';
import type { BusAsk } from './bus-messages';
import type { NodeBus } from './node-bus';
import type { HeldEdge, Presence } from './presence';

/** How much sooner than the asker a node answering a routed broadcast stops waiting (at most a quarter of the time). */
export const ROUTED_BROADCAST_MARGIN_MS = 250;

/** How often a node marks itself alive in Redis (its key lives `NODE_TTL_MS`). */
export const NODE_BEAT_MS = 1000;

/** What {@link joinCluster} needs: the relay's side ({@link ClusterJoinDeps}) and this node's presence registry and bus. */
export interface ClusterNodeDeps extends ClusterJoinDeps {
  readonly cluster: { readonly node: string; readonly redis: Redis; readonly presence: Presence; readonly bus: NodeBus; close(): Promise<void> };
}

/**
 * Joins the relay to the cluster: answers other nodes' requests with local sessions only
 * (a routed request is never routed again), refreshes the presence of every held edge once
 * per heartbeat (restoring records a Redis restart lost, closing sockets another node has
 * taken over), marks the node alive every second, and refreshes at once when Redis is back.
 */
export function joinCluster(deps: ClusterNodeDeps): ClusterNode {
  const { cluster, now } = deps;
  const { node, presence, bus } = cluster;
  const log = deps.logger.child({ node });
  const since = new WeakMap<EdgeSession, number>();
  let stopped = false;

  bus.onRequest(async function answerNode(request: BusRequest): Promise<unknown> {
    if (request.kind === 'broadcast') {
      const local = (instanceId: string) => deps.local({ tenantId: request.tenant, instanceId });
      return sendToLocalEdges(request.instances!, local, request.command!, request.timeout_ms!);
    }
    const session = deps.local({ tenantId: request.tenant, instanceId: request.instance! });
    if (request.kind === 'replaced') {
      // Ignored when this node claimed the edge again since (it moved back here).
      const record = session ? await presence.lookup(session.key!).catch(() => undefined) : undefined;
      if (session && record?.node !== node) session.close(CLOSE_CODES.replaced, 'replaced by a newer connection on another node');
      return null;
    }
    if (!session) throw instanceNotConnected();
    if (request.kind === 'sample') return session.sample();
    if (request.kind === 'try') return session.tryDecision(request.request!);
    return session.send(request.command!);
  });

  function claimed(session: EdgeSession): Promise<void> {
    const connectedAt = now();
    since.set(session, connectedAt);
    return session
      .record('presence claim', async (key) => {
        const previous = await presence.claim(key, node, connectedAt);
        if (previous === undefined) return;
        // The old holder's socket is stale (the edge reconnected here); it closes it.
        bus.request(previous, { kind: 'replaced', tenant: key.tenantId, instance: key.instanceId }, deps.execTimeoutMs).catch(() => undefined);
      })
      .then(() => undefined);
  }

  let refreshing = false;
  async function refreshHeld(): Promise<void> {
    if (refreshing || stopped) return;
    refreshing = true;
    try {
      const sessions: EdgeSession[] = [];
      const edges: HeldEdge[] = [];
      for (const session of deps.held()) {
        const connectedAt = since.get(session);
        if (session.key === undefined || connectedAt === undefined) continue;
        sessions.push(session);
        edges.push({ key: session.key, connectedAt });
      }
      const outcomes = await presence.refresh(edges, node, now());
      for (let i = 0; i < outcomes.length; i += 1) {
        if (outcomes[i] === 'lost') sessions[i]!.close(CLOSE_CODES.replaced, 'replaced by a newer connection on another node');
      }
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'presence refresh failed');
    } finally {
      refreshing = false;
    }
  }

  const beat = () => presence.markNodeAlive(node, now()).catch(() => undefined);
  void beat();
  const beatTimer = setInterval(beat, NODE_BEAT_MS);
  const refreshTimer = setInterval(() => void refreshHeld(), deps.heartbeatMs);
  beatTimer.unref();
  refreshTimer.unref();
  // Back from an outage (or a Redis restarted empty): every held edge is routable again at
  // once. A refresh restores what is missing and never takes an edge another node claimed.
  const onReady = () => {
    void beat();
    void refreshHeld();
  };
  cluster.redis.on('ready', onReady);

  async function route<T>(key: InstanceKey, ask: BusAsk): Promise<T> {
    const record = await presence.lookup(key);
    // Held by no node, or by this one without a socket (a record about to be released). A
    // record exists only for a stored registration, so the database is read only here.
    if (record === undefined || record.node === node) throw await deps.unrouted(key);
    return bus.request<T>(record.node, ask, deps.execTimeoutMs);
  }

  return {
    node,
    claimed,
    closed(session) {
      // Only this socket's claim: a reconnect to this same node may have claimed the edge anew.
      if (!stopped) void session.record('presence release', (key) => presence.release(key, node, since.get(session)));
    },
    exec: (key, command) => route<EdgeStatus>(key, { kind: 'exec', tenant: key.tenantId, instance: key.instanceId, command }),
    sample: (key) => route<DecisionSampleReply>(key, { kind: 'sample', tenant: key.tenantId, instance: key.instanceId }),
    tryDecision: async (key, request) => parseRoutedTryResult(await route<unknown>(key, { kind: 'try', tenant: key.tenantId, instance: key.instanceId, request })),
    async sendMany(owner, tenantId, instanceIds, command, timeoutMs) {
      // The owner stops waiting a little before the asker does, so its answer arrives in time.
      const ownerTimeoutMs = Math.max(1, timeoutMs - Math.min(ROUTED_BROADCAST_MARGIN_MS, Math.floor(timeoutMs / 4)));
      const parts: Promise<SendOutcome>[] = [];
      for (let i = 0; i < instanceIds.length; i += MAX_BUS_BROADCAST_IDS) {
        const chunk = instanceIds.slice(i, i + MAX_BUS_BROADCAST_IDS);
        const ask: BusAsk = { kind: 'broadcast', tenant: tenantId, instances: chunk, timeoutMs: ownerTimeoutMs, command };
        parts.push(
          bus.request(owner, ask, timeoutMs).then(
            (answer) => parseRoutedOutcome(answer, chunk),
            (err: unknown) => ({ confirmed: 0, failed: chunk.map((id) => ({ id, code: failureCode(err) })) }),
          ),
        );
      }
      let confirmed = 0;
      const failed: SendOutcome['failed'] = [];
      for (const part of await Promise.all(parts)) {
        confirmed += part.confirmed;
        failed.push(...part.failed);
      }
      return { confirmed, failed };
    },
    async owners(tenantId, instanceIds) {
      const keys: InstanceKey[] = [];
      for (const instanceId of instanceIds) keys.push({ tenantId, instanceId });
      const records = await presence.lookupMany(keys);
      const owners: (string | null)[] = new Array(records.length);
      for (let i = 0; i < records.length; i += 1) owners[i] = records[i]?.node ?? null;
      return owners;
    },
    async close() {
      stopped = true;
      clearInterval(beatTimer);
      clearInterval(refreshTimer);
      cluster.redis.off('ready', onReady);
      const releases: Promise<unknown>[] = [];
      for (const session of deps.held()) {
        if (session.key !== undefined) releases.push(presence.release(session.key, node, since.get(session)).catch(() => false));
      }
      releases.push(presence.markNodeGone(node).catch(() => undefined));
      await Promise.all(releases);
      await cluster.close();
    },
  };
}
