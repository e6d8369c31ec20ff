// Throughput of the RBAC sample app with full authentication and authorization, as a
// ratio to a bare Express app serving the same greeting:  npm run bench:apps
//
// Servers run in child processes (lib/apps-server, and for the `edge` row the bench
// control plane and a real edge); autocannon runs here. Targets are warmed up, then
// alternated for a few rounds with the same connections and duration; the ratio of
// medians is the figure. Then the local authorizer's decision latency, in-process.
// CPU profile of the app child: BENCH_CPU_PROF=<dir> npm run bench:apps
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import type { AppsInfo } from './lib/apps-server';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { closeCalls, waitForRegistration } from './lib/control-plane-calls';
import type { ControlPlaneInfo } from './lib/control-plane-server';
import { measureDecisionLatency } from './lib/decision-latency';
import type { EdgeInfo } from './lib/edge-server';
import { alternate, printMedians, type LoadTarget } from './lib/load';
import { fmt, machineLine, printTable, verdict } from './lib/table';

const CONNECTIONS = 10;
const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 2;
const ROUNDS = 3;
const DECISIONS = 10_000;
const GOAL_RATIO = 0.9;
/** The only demo user the RBAC policy lets DELETE, so every request is a 200. */
const BENCH_USER = 'rick@the-citadel.com';

async function main(): Promise<void> {
  console.log(`Apps bench: DELETE /resource/x as ${BENCH_USER}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per run, ${ROUNDS} rounds alternated`);
  console.log(`${machineLine()}\n`);
  const children: BenchChild[] = [];
  try {
    // A control plane and a real edge, for the `rbac edge` row.
    const controlPlane = await forkBenchChild(join(__dirname, 'lib', 'control-plane-server.js'));
    children.push(controlPlane);
    const cp = await controlPlane.call<ControlPlaneInfo>('start');
    const edgeChild = await forkBenchChild(join(__dirname, 'lib', 'edge-server.js'));
    children.push(edgeChild);
    const edge = await edgeChild.call<EdgeInfo>('start', { relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret });
    await waitForRegistration(cp, edge.instanceId);

    const profileDir = process.env.BENCH_CPU_PROF;
    const apps = await forkBenchChild(join(__dirname, 'lib', 'apps-server.js'), profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    children.push(apps);
    const info = await apps.call<AppsInfo>('start', { username: BENCH_USER, edgeUrl: edge.edgeUrl });

    const targets: LoadTarget[] = Object.entries(info.urls).map(([label, url]) => ({
      label,
      url: `${url}/resource/x`,
      method: 'DELETE',
      ...(label === 'bare' || label === 'same stack, no auth' ? {} : { headers: { authorization: `Bearer ${info.accessToken}` } }),
    }));
    const results = await alternate(targets, { connections: CONNECTIONS, durationSeconds: DURATION_SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS });
    printMedians(results);

    const bare = results.medianRps('bare');
    console.log('\nThroughput relative to bare Express (ratio of medians):');
    printTable(
      ['target', 'ratio to bare', `goal ≥ ${GOAL_RATIO}`],
      targets
        .filter((t) => t.label !== 'bare')
        .map((t) => {
          const ratio = results.medianRps(t.label) / bare;
          return [t.label, fmt(ratio, 2), t.label === 'rbac local' ? verdict(ratio >= GOAL_RATIO) : 'info only'];
        }),
    );
    // What authentication + authorization themselves cost: the same app with and without them.
    const sameStack = results.medianRps('same stack, no auth');
    console.log('\nAuthentication + authorization alone (rbac local ÷ same stack, no auth):');
    printTable(['target', 'ratio', 'note'], [['rbac local', fmt(results.medianRps('rbac local') / sameStack, 2), 'helmet and the request log on both sides']]);
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }

  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const seed = loadDirectorySeed(config.directorySeedFile);
  const rick = seed.directory.users.find((u) => u.email === BENCH_USER);
  if (!rick) throw new Error(`${BENCH_USER} is not in the seed directory`);
  const latency = await measureDecisionLatency({
    policiesDir: config.policiesDir,
    directory: seed.directory,
    principal: rick.id,
    action: 'DELETE',
    iterations: DECISIONS,
  });
  console.log(`\nLocal authorizer decision latency, in-process, ${DECISIONS} sequential decisions each (µs):`);
  printTable(
    ['decision', 'p50 µs', 'p99 µs', 'mean µs', 'max µs', 'cache hits / misses'],
    [
      ['cold (cache miss, new resource id each)', latency.cold.p50 * 1000, latency.cold.p99 * 1000, latency.cold.mean * 1000, latency.cold.max * 1000, `${latency.coldHits} hits`],
      ['cached (same request)', latency.cached.p50 * 1000, latency.cached.p99 * 1000, latency.cached.mean * 1000, latency.cached.max * 1000, `${latency.cachedMisses} misses`],
    ],
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
