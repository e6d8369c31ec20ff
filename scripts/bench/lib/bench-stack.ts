// The control plane and a sidecar edge, each in a forked child, the edge registered: what
// bench:apps, bench:relay and bench:search measure against.
import { join } from 'node:path';
import { forkBenchChild, type BenchChild } from './child-harness';
import { waitForRegistration } from './control-plane-calls';
import type { ControlPlaneInfo } from './control-plane-server';
import type { EdgeInfo } from './edge-server';

export interface BenchStack {
  readonly controlPlane: BenchChild;
  readonly cp: ControlPlaneInfo;
  readonly edgeChild: BenchChild;
  readonly edge: EdgeInfo;
  /** The edge connection's credentials, for more edges on it. */
  readonly credentials: { readonly relayUrl: string; readonly connectionId: string; readonly connectionSecret: string };
}

/**
 * Forks the control plane (with `controlPlaneArgv`, e.g. `--expose-gc`) and a sidecar edge on
 * its connection, and waits until the edge has registered. Both children are pushed onto
 * `children` as soon as they exist, so the caller's cleanup stops them whatever fails later.
 */
export async function startBenchStack(children: BenchChild[], controlPlaneArgv: readonly string[] = []): Promise<BenchStack> {
  const controlPlane = await forkBenchChild(join(__dirname, 'control-plane-server.js'), controlPlaneArgv);
  children.push(controlPlane);
  const cp = await controlPlane.call<ControlPlaneInfo>('start');
  // BENCH_CPU_PROF=<dir>: the edge child also writes a CPU profile there when it exits.
  const profileDir = process.env.BENCH_CPU_PROF;
  const edgeChild = await forkBenchChild(join(__dirname, 'edge-server.js'), profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  children.push(edgeChild);
  const credentials = { relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret };
  const edge = await edgeChild.call<EdgeInfo>('start', credentials);
  await waitForRegistration(cp, edge.instanceId);
  return { controlPlane, cp, edgeChild, edge, credentials };
}
