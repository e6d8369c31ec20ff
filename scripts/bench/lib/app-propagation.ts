// How fast a change reaches the decisions of an app with an embedded edge: the operator's
// calls (admin API, then exec) and the app's next answer, timed step by step.
import type { ControlPlaneInfo } from './control-plane-server';
import { execCommand, pushPolicy, request, setRole } from './control-plane-calls';
import { policyVariant } from './relay-measurements';
import { msSince, summarize, type LatencySummary } from './stats';

export interface AppPropagationSetup {
  readonly cp: ControlPlaneInfo;
  /** The RBAC app with the embedded edge, and that edge's instance id. */
  readonly appUrl: string;
  readonly instanceId: string;
  /** Morty (an editor): the user whose answer each change flips. */
  readonly mortyId: string;
  readonly mortyToken: string;
  readonly policiesDir: string;
}

/** One change's timings: the whole chain and its three steps (ms). */
export interface Propagation {
  readonly total: LatencySummary;
  readonly change: LatencySummary;
  readonly exec: LatencySummary;
  readonly decision: LatencySummary;
}

async function mortyDeletes(setup: AppPropagationSetup): Promise<number> {
  const res = await request(`${setup.appUrl}/resource/mega-seed`, 'DELETE', { authorization: `Bearer ${setup.mortyToken}` });
  return res.status;
}

/**
 * `iterations` times: make a change that flips Morty's DELETE, send the command, and ask
 * the app; the answer must already be the new one (the run stops otherwise). Alternating
 * changes, so each one is real; Morty ends as he started.
 */
async function measure(
  setup: AppPropagationSetup,
  iterations: number,
  change: (i: number, allow: boolean) => Promise<unknown>,
  command: 'discovery' | 'sync_edge_directory',
): Promise<Propagation> {
  const steps = { total: [] as number[], change: [] as number[], exec: [] as number[], decision: [] as number[] };
  for (let i = 0; i < iterations + (iterations % 2); i += 1) {
    const allow = i % 2 === 0;
    const started = process.hrtime.bigint();
    await change(i, allow);
    const changed = process.hrtime.bigint();
    await execCommand(setup.cp, setup.instanceId, command);
    const executed = process.hrtime.bigint();
    const status = await mortyDeletes(setup);
    if (status !== (allow ? 200 : 403)) throw new Error(`iteration ${i}: the app answered ${status} after ${command} returned`);
    steps.total.push(msSince(started));
    steps.change.push(Number(changed - started) / 1e6);
    steps.exec.push(Number(executed - changed) / 1e6);
    steps.decision.push(msSince(executed));
  }
  return { total: summarize(steps.total), change: summarize(steps.change), exec: summarize(steps.exec), decision: summarize(steps.decision) };
}

/** Directory grant/revoke (admin API) → `sync_edge_directory` → the app's answer. */
export function measureDirectoryPropagation(setup: AppPropagationSetup, iterations: number): Promise<Propagation> {
  return measure(setup, iterations, (_i, allow) => setRole(setup.cp, setup.mortyId, 'admin', allow), 'sync_edge_directory');
}

/** Policy push (editors may DELETE, or not) → `discovery` → the app's answer. */
export function measurePolicyPropagation(setup: AppPropagationSetup, iterations: number): Promise<Propagation> {
  return measure(setup, iterations, (i, allow) => pushPolicy(setup.cp, 'rbac', policyVariant(setup.policiesDir, 200_000 + i, allow)), 'discovery');
}
