// Several control-plane nodes on loopback:  npm run bench:cluster [-- --edges 3000 --nodes 3]
//
// Processes: a throwaway PostgreSQL and Redis (Debian's binaries, temporary folders), N
// control-plane nodes (the real `control-plane-server/main`, LOG_LEVEL=info to /dev/null), a
// round-robin TCP front in this process, and the fake edges in a child (lib/cluster-edges),
// each reconnecting with the edges' default backoff. This process makes the operators'
// calls. Figures: exec routed across nodes vs on the owning node (alternated, same edges),
// commands/s across the cluster, memory per edge per node, and the time from SIGKILL of a
// node to all of its edges being registered on the others. The commands/s figure is measured
// twice in the same run: every exec sent to the node holding the edge (nothing routed), then
// to a random node (two in three routed), with the CPU each kind of process spent on it. And
// one broadcast to every edge of the tenant (docs/reference/api.md, "Broadcast"), its edges
// spread over the nodes, against the same broadcast to another tenant's as many edges all
// connected to the one node it is sent to (alternated, ratios per round).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openControlPlaneStore } from '../../src/control-plane';
import { readDemoTenantFile } from '../../src/config';
import { freePort } from '../lib/free-port';
import { startLocalPostgres } from '../lib/local-postgres';
import { startLocalRedis } from '../lib/local-redis';
import { scriptCommand } from '../lib/script-command';
import { forkBenchChild } from './lib/child-harness';
import type { ClusterEdgesInfo, FailoverReport } from './lib/cluster-edges';
import { closeCalls, request } from './lib/control-plane-calls';
import { cpuMsOf, treeCpuMs } from './lib/read-process-cpu';
import { summarize, type LatencySummary } from './lib/stats';
import { fmt, machineLine, printTable, verdict } from './lib/table';

const GOALS = { routedToLocalP99: 2, commandsPerSecond: 1000, failoverP99Ms: 10_000, broadcastAcrossToOneNode: 1.5 };
/** The relay's default cap of sockets per connection credential is 16; stay under it. */
const EDGES_PER_CREDENTIAL = 15;
const LATENCY_PAIRS = 400;
const THROUGHPUT_SECONDS = 5;
const IN_FLIGHT = 64;
const FAILOVER_LIMIT_MS = 60_000;
const BROADCAST_ROUNDS = 3;
const BROADCASTS_PER_ROUND = 10;

interface Node {
  readonly id: string;
  readonly url: string;
  readonly child: ChildProcess;
}


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node at ${url} exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`node at ${url} did not become healthy`);
}

/** The postmaster's pid, the first line of its data folder's `postmaster.pid` (PostgreSQL's own lock file). */
function postmasterPid(clusterDir: string): number {
  const pid = Number(readFileSync(join(clusterDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${clusterDir}/data/postmaster.pid`);
  return pid;
}

/** Resident memory of a process, from /proc (Linux), in bytes. */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

async function main(): Promise<void> {
  const options = scriptCommand(
    'npm run bench:cluster --',
    'control-plane nodes on a throwaway PostgreSQL and Redis with fake edges: routed vs local exec, commands/s, memory per edge, failover after SIGKILL',
    'npm run bench:cluster -- --edges 3000 --nodes 3',
  )
    .option('--edges <n>', 'fake edges', (v) => Number(v), 3000)
    .option('--nodes <n>', 'control-plane nodes', (v) => Number(v), 3)
    .parse()
    .opts<{ edges: number; nodes: number }>();
  console.log(`Cluster bench: ${options.nodes} nodes, ${options.edges} edges; ${machineLine()}\n`);

  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-cluster-'));
  const postgres = await startLocalPostgres();
  const redis = await startLocalRedis();
  const nodes: Node[] = [];
  const ports: number[] = [];
  for (let i = 0; i < options.nodes; i += 1) ports.push(await freePort());
  const frontChild = await forkBenchChild(join(__dirname, 'lib', 'front-server.js'));
  const front = await frontChild.call<{ url: string }>('start', { backends: ports.map((p) => `127.0.0.1:${p}`) });
  const edgesChild = await forkBenchChild(join(__dirname, 'lib', 'cluster-edges.js'));
  const alive = new Set<Node>();
  try {
    // Node 1 seeds the empty database; the others start once it is healthy.
    for (let i = 0; i < options.nodes; i += 1) {
      const id = `node-${i + 1}`;
      const url = `http://127.0.0.1:${ports[i]}`;
      const child = spawn(process.execPath, [join(__dirname, '..', '..', 'src', 'control-plane-server', 'main.js')], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          OUTPOST_DATA_DIR: dataDir,
          CONTROL_PLANE_PORT: String(ports[i]),
          RELAY_URL: front.url,
          RELAY_NODE_ID: id,
          DATABASE_URL: postgres.url,
          REDIS_URL: redis.url,
          LOG_LEVEL: 'info',
        },
      });
      const node = { id, url, child };
      nodes.push(node);
      alive.add(node);
      await waitHealthy(url, child);
    }
    const demo = readDemoTenantFile(dataDir);
    const auth = { 'content-type': 'application/json', 'service-tenant-id': demo.tenant_id, authorization: `basic ${demo.discovery_api_key}` };

    // Connection credentials for the fleet, made directly in the shared database.
    const store = await openControlPlaneStore({ databaseUrl: postgres.url, poolSize: 2 });
    const credentials: { connectionId: string; connectionSecret: string }[] = [];
    for (let i = 0; i * EDGES_PER_CREDENTIAL < options.edges; i += 1) {
      credentials.push(await store.tenants.addConnection(demo.tenant_id, 'rbac'));
    }
    await store.close();

    const rssBefore = nodes.map((n) => rssOf(n.child.pid!));
    const fleet = await edgesChild.call<ClusterEdgesInfo>('start', {
      relayUrl: front.url,
      credentials,
      edgesPerCredential: EDGES_PER_CREDENTIAL,
      count: options.edges,
      prefix: 'bench-edge-',
    });
    console.log(`${options.edges} fake edges connected through the front and registered in ${fmt(fleet.ms / 1000, 1)} s\n`);
    await sleep(2000); // let the nodes' allocations settle before reading memory
    const owners = await listOwners(nodes[0]!.url, auth);
    const rssAfter = nodes.map((n) => rssOf(n.child.pid!));

    console.log('Memory per node (RSS, after the fleet registered):');
    printTable(
      ['node', 'edges held', 'RSS before MiB', 'RSS after MiB', 'per edge KiB'],
      nodes.map((n, i) => {
        const held = [...owners.values()].filter((o) => o === n.id).length;
        return [n.id, held, rssBefore[i]! / 2 ** 20, rssAfter[i]! / 2 ** 20, held > 0 ? (rssAfter[i]! - rssBefore[i]!) / held / 1024 : Number.NaN];
      }),
    );

    // Routed vs local, alternated on the same edges: exec on the owner, then on another node.
    const first = nodes[0]!;
    const second = nodes[1]!;
    const ownedByFirst = [...owners.entries()].filter(([, node]) => node === first.id).map(([id]) => id);
    const local: number[] = [];
    const routed: number[] = [];
    const exec = async (node: Node, instanceId: string, command = 'sync_edge_directory') => {
      const started = process.hrtime.bigint();
      const res = await request(`${node.url}/api/v2/management/control_plane/exec`, 'POST', auth, JSON.stringify({ id: instanceId, command: { [command]: {} } }));
      if (res.status !== 200) throw new Error(`exec on ${node.id} answered ${res.status}: ${res.text.slice(0, 200)}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < 50; i += 1) await exec(second, ownedByFirst[i % ownedByFirst.length]!); // warm-up
    for (let i = 0; i < LATENCY_PAIRS; i += 1) {
      const id = ownedByFirst[i % ownedByFirst.length]!;
      local.push(await exec(first, id));
      routed.push(await exec(second, id));
    }
    const l = summarize(local);
    const r = summarize(routed);
    console.log(`\nExec latency, ${LATENCY_PAIRS} pairs alternated (one exec at a time, edges held by ${first.id}):`);
    const row = (name: string, s: LatencySummary) => [name, s.count, s.p50, s.p99, s.mean, s.max];
    printTable(['exec', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'], [row(`on the owning node (${first.id})`, l), row(`routed (${second.id} → ${first.id})`, r)], 2);

    // One broadcast to all the edges, against the same broadcast on one node: a second tenant
    // with as many edges, all connected straight to the first node. Alternated per round, each
    // ratio against the same round's one-node broadcast; every edge must confirm every time.
    const baselineStore = await openControlPlaneStore({ databaseUrl: postgres.url, poolSize: 2 });
    const baselineKeys = await baselineStore.tenants.create('broadcast baseline');
    const baselineCredentials: { connectionId: string; connectionSecret: string }[] = [];
    for (let i = 0; i * EDGES_PER_CREDENTIAL < options.edges; i += 1) {
      baselineCredentials.push(await baselineStore.tenants.addConnection(baselineKeys.tenantId, 'rbac'));
    }
    await baselineStore.close();
    const baselineChild = await forkBenchChild(join(__dirname, 'lib', 'cluster-edges.js'));
    const baselineAuth = { 'content-type': 'application/json', 'service-tenant-id': baselineKeys.tenantId, authorization: `basic ${baselineKeys.discoveryApiKey}` };
    const broadcastOnce = async (node: Node, headers: Record<string, string>): Promise<number> => {
      const started = process.hrtime.bigint();
      const res = await request(`${node.url}/api/v2/management/control_plane/broadcast`, 'POST', headers, JSON.stringify({ command: { sync_edge_directory: {} } }));
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const result = res.status === 200 ? (JSON.parse(res.text) as { result: { sent: number; confirmed: number } }).result : undefined;
      if (!result || result.sent !== options.edges || result.confirmed !== result.sent) throw new Error(`broadcast on ${node.id} answered ${res.status}: ${res.text.slice(0, 300)}`);
      return ms;
    };
    const spread: number[] = [];
    const oneNode: number[] = [];
    const ratios: number[] = [];
    try {
      await baselineChild.call<ClusterEdgesInfo>('start', {
        relayUrl: first.url,
        credentials: baselineCredentials,
        edgesPerCredential: EDGES_PER_CREDENTIAL,
        count: options.edges,
        prefix: 'bench-baseline-',
      });
      await broadcastOnce(first, auth); // warm-up, not counted
      await broadcastOnce(first, baselineAuth);
      for (let round = 0; round < BROADCAST_ROUNDS; round += 1) {
        const across: number[] = [];
        const alone: number[] = [];
        for (let i = 0; i < BROADCASTS_PER_ROUND; i += 1) {
          alone.push(await broadcastOnce(first, baselineAuth));
          across.push(await broadcastOnce(first, auth));
        }
        spread.push(...across);
        oneNode.push(...alone);
        ratios.push(summarize(across).p50 / summarize(alone).p50);
      }
    } finally {
      await baselineChild.stop();
    }
    ratios.sort((x, y) => x - y);
    const broadcastRatio = { min: ratios[0]!, median: ratios[Math.floor(ratios.length / 2)]!, max: ratios[ratios.length - 1]! };
    console.log(
      `\nOne broadcast (sync_edge_directory) to ${options.edges} edges, sent to ${first.id}: the tenant's edges spread over ${options.nodes} nodes, ` +
        `against another tenant's ${options.edges} edges all on ${first.id}; ${BROADCAST_ROUNDS} rounds of ${BROADCASTS_PER_ROUND} pairs alternated:`,
    );
    printTable(['broadcast', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'], [row(`across ${options.nodes} nodes`, summarize(spread)), row(`on one node (${first.id})`, summarize(oneNode))], 2);
    const ratioText = `${fmt(broadcastRatio.median, 2)} (${fmt(broadcastRatio.min, 2)}–${fmt(broadcastRatio.max, 2)})`;
    console.log(`across ÷ one node, each round's p50 against the same round's, median (min–max): ${ratioText}`);

    // Throughput, twice: every exec to the node holding the edge, then to a random node. CPU
    // is read only from the processes this bench started and their descendants (the
    // postmaster's backends), never from every `postgres` on the machine.
    const frontPid = await frontChild.call<number>('pid');
    const postgresPid = postmasterPid(postgres.dir);
    const cpuGroups = (): Record<string, number> => ({
      nodes: treeCpuMs(nodes.map((n) => n.child.pid!)),
      postgres: treeCpuMs([postgresPid]),
      redis: redis.pid === undefined ? 0 : treeCpuMs([redis.pid]),
      front: treeCpuMs([frontPid]),
      'fake edges': treeCpuMs([edgesChild.pid]),
      'load (this process)': cpuMsOf(process.pid), // itself only: its tree is every process above
    });
    const ids = [...owners.keys()];
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const throughput = async (pick: (instanceId: string) => Node) => {
      let done = 0;
      let failed = 0;
      const cpuBefore = cpuGroups();
      const until = Date.now() + THROUGHPUT_SECONDS * 1000;
      const startedAt = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (Date.now() < until) {
            const id = ids[Math.floor(Math.random() * ids.length)]!;
            try {
              await exec(pick(id), id);
              done += 1;
            } catch {
              failed += 1;
            }
          }
        }),
      );
      const perSecond = done / (Number(process.hrtime.bigint() - startedAt) / 1e9);
      const cpuAfter = cpuGroups();
      const cpuPerCommand: Record<string, number> = {};
      for (const key of Object.keys(cpuAfter)) cpuPerCommand[key] = (cpuAfter[key]! - cpuBefore[key]!) / Math.max(done, 1);
      return { perSecond, done, failed, cpuPerCommand };
    };
    const localRun = await throughput((id) => byId.get(owners.get(id)!)!);
    const randomRun = await throughput(() => nodes[Math.floor(Math.random() * nodes.length)]!);
    const perSecond = randomRun.perSecond;
    console.log(`\nCommands/s across the cluster (${IN_FLIGHT} in flight, random edge, ${THROUGHPUT_SECONDS} s each), and CPU ms per confirmed command by process kind:`);
    const kinds = Object.keys(localRun.cpuPerCommand);
    printTable(
      ['exec sent to', 'commands/s', 'failed', ...kinds.map((k) => `${k} ms`), 'all ms'],
      [
        ['the owning node (none routed)', localRun, 0],
        ['a random node (≈ 2 in 3 routed)', randomRun, 0],
      ].map(([name, run]) => {
        const r = run as typeof localRun;
        const total = kinds.reduce((sum, k) => sum + r.cpuPerCommand[k]!, 0);
        return [name as string, fmt(r.perSecond, 0), String(r.failed), ...kinds.map((k) => fmt(r.cpuPerCommand[k]!, 2)), fmt(total, 2)];
      }),
    );

    // Failover: SIGKILL the last node; its edges reconnect through the front to the others.
    const victim = nodes[nodes.length - 1]!;
    const held = [...owners.values()].filter((o) => o === victim.id).length;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    alive.delete(victim);
    let report: FailoverReport = { lost: 0, back: [] };
    while (Date.now() - killedAt < FAILOVER_LIMIT_MS) {
      await sleep(250);
      report = await edgesChild.call<FailoverReport>('failover', { since: killedAt });
      if (report.lost >= held && report.back.length >= report.lost) break;
    }
    const back = summarize(report.back);
    const after = await listOwners(first.url, auth);
    const connectedAfter = [...after.values()].filter((node) => node !== null).length;
    console.log(`\nFailover: SIGKILL ${victim.id} holding ${held} edges; ${report.lost} lost their socket, ${report.back.length} registered again on another node`);
    printTable(['measure', 'n', 'p50 ms', 'p99 ms', 'max ms'], [['kill → registered elsewhere', back.count, back.p50, back.p99, back.max]], 0);
    console.log(`instance_registrations afterwards: ${connectedAfter} of ${options.edges} connected, none on ${victim.id}: ${[...after.values()].every((n) => n !== victim.id)}`);

    console.log('\nSummary:');
    printTable(
      ['goal', 'figure', 'verdict'],
      [
        [`routed p99 ≤ ${GOALS.routedToLocalP99}× local p99`, `${fmt(r.p99 / l.p99, 2)}× (${fmt(r.p99, 2)} vs ${fmt(l.p99, 2)} ms)`, verdict(r.p99 / l.p99 <= GOALS.routedToLocalP99)],
        [`≥ ${GOALS.commandsPerSecond} commands/s`, `${fmt(perSecond, 0)} (${fmt(perSecond / localRun.perSecond, 2)} of the same run with nothing routed: ${fmt(localRun.perSecond, 0)})`, verdict(perSecond >= GOALS.commandsPerSecond)],
        [
          `broadcast across ${options.nodes} nodes ≤ ${GOALS.broadcastAcrossToOneNode}× on one node (p50, per round)`,
          `${ratioText} (${options.edges} edges; p99 ${fmt(summarize(spread).p99, 1)} vs ${fmt(summarize(oneNode).p99, 1)} ms)`,
          verdict(broadcastRatio.median <= GOALS.broadcastAcrossToOneNode),
        ],
        [`failover p99 < ${GOALS.failoverP99Ms / 1000} s`, `${fmt(back.p99 / 1000, 2)} s (all back: ${report.back.length === held})`, verdict(back.p99 < GOALS.failoverP99Ms && report.back.length === held)],
      ],
    );
  } finally {
    await edgesChild.stop();
    for (const node of alive) node.child.kill('SIGTERM');
    await Promise.all([...alive].map((n) => new Promise((resolve) => (n.child.exitCode === null ? n.child.once('exit', resolve) : resolve(undefined)))));
    await frontChild.stop();
    await redis.stop();
    await postgres.stop();
    closeCalls();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Every registration of the tenant, as instance id → owning node (null when not connected). */
async function listOwners(url: string, auth: Record<string, string>): Promise<Map<string, string | null>> {
  const owners = new Map<string, string | null>();
  let token: string | undefined;
  do {
    const query = `page_size=1000${token ? `&page_token=${token}` : ''}`;
    const res = await request(`${url}/api/v2/management/control_plane/instance_registrations?${query}`, 'GET', auth);
    if (res.status !== 200) throw new Error(`instance_registrations answered ${res.status}: ${res.text.slice(0, 200)}`);
    const body = JSON.parse(res.text) as { result: { id: string; info: { connected: boolean; node?: string | null } }[]; next_page_token?: string };
    for (const r of body.result) owners.set(r.id, r.info.connected ? (r.info.node ?? null) : null);
    token = body.next_page_token;
  } while (token);
  return owners;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
