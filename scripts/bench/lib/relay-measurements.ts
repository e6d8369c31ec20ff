import { join } from 'node:path';
import { readPolicyFolder } from '../../../src/policy';
import { letEditorsDelete } from '../../lib/let-editors-delete';
import { askEdge, broadcastCommand, execCommand, pushPolicy, setRole } from './control-plane-calls';
import type { ControlPlaneInfo } from './control-plane-server';
import { msSince, summarize, timeEach, type LatencySummary } from './stats';

/** The bench's view of the demo setup: control plane, the real edge, the directory user ids. */
export interface RelayBenchSetup {
  readonly cp: ControlPlaneInfo;
  readonly edgeUrl: string;
  readonly instanceId: string;
  readonly policiesDir: string;
  /** An editor: denied DELETE by the stock rbac policy, allowed by the variant. */
  readonly mortyId: string;
}

/**
 * A new image of `rbac` for every call: the stock files (or the variant letting editors
 * DELETE, which changes Morty's DELETE decision, with its tests changed to match) plus a
 * comment naming the iteration, so every push has a fresh digest.
 */
export function policyVariant(policiesDir: string, iteration: number, editorsMayDelete: boolean): Record<string, string> {
  const stock = readPolicyFolder(join(policiesDir, 'rbac')).files;
  const files = editorsMayDelete ? letEditorsDelete(stock) : stock;
  return { ...files, 'rbac.cedar': `${stock['rbac.cedar'] ?? ''}\n// bench iteration ${iteration}\n` };
}

/** Round trip of `POST …/exec` as the operator sees it, per command case. */
export async function measureExecRoundTrips(setup: RelayBenchSetup, iterations: number): Promise<Record<string, LatencySummary>> {
  const { cp, instanceId, policiesDir, mortyId } = setup;
  let push = 0;
  // Warm-up of every path (HTTP, relay, edge download and compile).
  for (let i = 0; i < 10; i += 1) {
    await pushPolicy(cp, 'rbac', policyVariant(policiesDir, push++, false));
    await execCommand(cp, instanceId, 'discovery');
    await setRole(cp, mortyId, 'admin', i % 2 === 0);
    await execCommand(cp, instanceId, 'sync_edge_directory');
  }
  const unchanged = await timeEach(iterations, () => execCommand(cp, instanceId, 'discovery'));

  const changed: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    await pushPolicy(cp, 'rbac', policyVariant(policiesDir, push++, false));
    const started = process.hrtime.bigint();
    await execCommand(cp, instanceId, 'discovery');
    changed.push(msSince(started));
  }

  const directory: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    // Alternating grant/revoke: every iteration is one new revision for the edge to fetch.
    await setRole(cp, mortyId, 'admin', i % 2 === 0);
    const started = process.hrtime.bigint();
    await execCommand(cp, instanceId, 'sync_edge_directory');
    directory.push(msSince(started));
  }
  // Leave Morty as seeded (editor only) for the propagation test.
  if (iterations % 2 === 1) await setRole(cp, mortyId, 'admin', false);
  return {
    'discovery, image unchanged': summarize(unchanged),
    'discovery, changed image pushed before each': summarize(changed),
    'sync_edge_directory, one directory change before each': summarize(directory),
  };
}

/** Policy push → discovery exec → the edge's decision has changed; total and the three steps. */
export async function measurePropagation(
  setup: RelayBenchSetup,
  iterations: number,
): Promise<{ total: LatencySummary; push: LatencySummary; exec: LatencySummary; decision: LatencySummary }> {
  const { cp, edgeUrl, instanceId, policiesDir, mortyId } = setup;
  const total: number[] = [];
  const steps = { push: [] as number[], exec: [] as number[], decision: [] as number[] };
  for (let i = 0; i < iterations; i += 1) {
    const expected = i % 2 === 0; // variant (editors may DELETE), then stock, then variant…
    const files = policyVariant(policiesDir, 100_000 + i, expected);
    const started = process.hrtime.bigint();
    await pushPolicy(cp, 'rbac', files);
    const pushed = process.hrtime.bigint();
    await execCommand(cp, instanceId, 'discovery');
    const executed = process.hrtime.bigint();
    const allowed = await askEdge(edgeUrl, mortyId, 'rbac.DELETE', 'mega-seed');
    total.push(msSince(started));
    steps.push.push(Number(pushed - started) / 1e6);
    steps.exec.push(Number(executed - pushed) / 1e6);
    steps.decision.push(msSince(executed));
    if (allowed !== expected) throw new Error(`iteration ${i}: the edge still answered ${allowed} after discovery returned`);
  }
  return { total: summarize(total), push: summarize(steps.push), exec: summarize(steps.exec), decision: summarize(steps.decision) };
}

/** An exec to each instance in turn with `inFlight` workers; commands/s and per-exec latency. */
/** One round of {@link measureBroadcast}: the exec fan-out's time and each broadcast's. */
export interface BroadcastRound {
  readonly execFanOutMs: number;
  readonly broadcastMs: readonly number[];
}

/**
 * One command to every one of `instanceIds` (with the tenant's other connected edges) two ways,
 * alternated per round so each ratio has its baseline from the same round: a fan-out of
 * execs, `inFlight` at a time, then `perRound` broadcasts. Every broadcast must come back
 * with all of them confirmed.
 */
export async function measureBroadcast(
  cp: ControlPlaneInfo,
  instanceIds: readonly string[],
  options: { rounds: number; perRound: number; inFlight: number },
): Promise<BroadcastRound[]> {
  const rounds: BroadcastRound[] = [];
  for (let r = 0; r < options.rounds; r += 1) {
    const started = process.hrtime.bigint();
    await measureFanOut(cp, instanceIds, options.inFlight);
    const execFanOutMs = msSince(started);
    const broadcastMs: number[] = [];
    for (let i = 0; i < options.perRound; i += 1) {
      const t = process.hrtime.bigint();
      const result = await broadcastCommand(cp, 'discovery');
      broadcastMs.push(msSince(t));
      // The tenant's other edges (the bench's real one) are reached too.
      if (result.failed.length > 0 || result.confirmed !== result.sent || result.sent < instanceIds.length) {
        throw new Error(`a broadcast reached ${result.confirmed} of ${result.sent} edges (${instanceIds.length} fakes): ${JSON.stringify(result.failed.slice(0, 5))}`);
      }
    }
    rounds.push({ execFanOutMs, broadcastMs });
  }
  return rounds;
}

export async function measureFanOut(
  cp: ControlPlaneInfo,
  instanceIds: readonly string[],
  inFlight: number,
): Promise<{ perSecond: number; latency: LatencySummary }> {
  const samples: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  async function worker(): Promise<void> {
    while (next < instanceIds.length) {
      const id = instanceIds[next++] as string;
      const t = process.hrtime.bigint();
      await execCommand(cp, id, 'discovery');
      samples.push(msSince(t));
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = msSince(started) / 1000;
  return { perSecond: instanceIds.length / seconds, latency: summarize(samples) };
}
