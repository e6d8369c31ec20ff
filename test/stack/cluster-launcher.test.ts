/**
 * `npm run cluster` as a person runs it (dist/scripts/cluster.js, as the npm script runs it, so
 * its components run from dist/ too): two nodes on a throwaway PostgreSQL and Redis behind the round-robin
 * front, the sidecar edge and both apps. One node is killed like a crash: the stack goes on,
 * its edges reconnect and the launcher restarts it; SIGTERM then stops every process it
 * started, the restarted node included, and removes the servers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot, loadConfig, readDemoTenantFile } from '../../src/config';
import { fetchToken } from '../../scripts/lib/fetch-token';
import { callResource, exec, registrations, tenantFromDemo, type RegistrationView, type TenantCredentials } from '../integration/stack-client';
import { childrenOf, commandLine, stopLauncher } from './process-tree';
import { compiled } from '../helpers/compiled';
import { freePort, freePortRun } from '../../scripts/lib/free-port';

const STARTUP_TIMEOUT_MS = 90_000;
const FAILOVER_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 30_000;
const PASSWORD = 'V@erySecre#t123!'; // data/citadel-directory.json


/** Whether something accepts a TCP connection on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The edges the cluster runs: the sidecar, and one embedded in each app of apps.json. */
const EDGES = 1 + loadConfig({}).apps.list.length;
const allConnectedOn = (list: RegistrationView[], node: (n: string | undefined) => boolean) =>
  list.length === EDGES && list.every((r) => r.info.connected && node((r.info as { node?: string }).node));
const nodeOf = (r: RegistrationView) => (r.info as { node?: string }).node;

describe('npm run cluster', () => {
  const root = findProjectRoot();
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null>;
  /** Every process the launcher started, as seen once it was up. */
  let started: number[] = [];

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-cluster-'));
  });

  afterAll(async () => {
    // A failed test must not leave a cluster behind: SIGTERM stops it and its servers.
    await stopLauncher(launcher, exited, STOP_TIMEOUT_MS);
    for (const pid of started) if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }, STOP_TIMEOUT_MS + 10_000);

  it('serves through the front, survives and restarts a killed node, and leaves nothing behind on SIGTERM', async () => {
    const front = await freePortRun(3);
    const ports = { idp: await freePort(), edge: await freePort() };
    // Every app of apps.json on a free port of its own (the samples, and any `npm run new-app` added).
    const appPorts: Record<string, string> = {};
    for (const app of loadConfig({}).apps.list) appPorts[app.vars.port] = String(await freePort());
    launcher = spawn(process.execPath, [compiled('scripts/cluster.ts'), '--nodes', '2'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'warn',
        OUTPOST_DATA_DIR: dataDir,
        IDP_PORT: String(ports.idp),
        CONTROL_PLANE_PORT: String(front),
        EDGE_PORT: String(ports.edge),
        ...appPorts,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = launcher;
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const running = () => child.exitCode === null && child.signalCode === null;

    /**
     * Polls `probe` (a throw counts as "not yet") until it returns a value; fails at once,
     * quoting the launcher, when the launcher exits, and when the bounded wait runs out.
     */
    async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 200): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (!running()) throw new Error(`the launcher exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}:\n${output}`);
        const value = await probe().catch(() => undefined);
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the launcher said:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    }

    // Up: the whole banner, printed at once after the last component answered.
    await until(
      'the "Cluster mode:" banner',
      async () => (output.includes('Cluster mode:') && output.includes('docs/guide/06-more-than-one-node.md has the rest.') ? true : undefined),
      STARTUP_TIMEOUT_MS,
    );
    expect(running()).toBe(true);
    const nodePids = new Map<string, number>();
    for (const m of output.matchAll(/control plane \d+\s+http:\S+\s+\(RELAY_NODE_ID=(node-\d+), pid (\d+)\)/g)) nodePids.set(m[1]!, Number(m[2]));
    expect([...nodePids.keys()].sort()).toEqual(['node-1', 'node-2']);
    const pgPort = Number(/PostgreSQL\s+postgres:\/\/\S*@127\.0\.0\.1:(\d+)\/\S+\s+\(throwaway/.exec(output)?.[1]);
    const redisPort = Number(/Redis\s+redis:\/\/127\.0\.0\.1:(\d+)\s+\(throwaway/.exec(output)?.[1]);
    expect(await accepts(pgPort)).toBe(true);
    expect(await accepts(redisPort)).toBe(true);

    // Its processes: idp, 2 nodes, edge, 2 apps, postgres and redis-server.
    started = childrenOf(child.pid!);
    expect(started.length).toBe(8);
    for (const pid of nodePids.values()) expect(started).toContain(pid);
    const postmaster = started.map(commandLine).find((argv) => argv.some((a) => a.endsWith('/postgres')));
    const pgDir = postmaster?.[postmaster.indexOf('-D') + 1]?.replace(/\/data$/, '');
    expect(pgDir).toMatch(/outpost-pg-/);
    expect(existsSync(pgDir!)).toBe(true);

    // The RBAC app decides with its embedded edge, which reached the control plane through the front.
    const authUrl = `http://localhost:${ports.idp}`;
    const appUrl = `http://localhost:${appPorts.RBAC_PORT}`;
    const rick = (await fetchToken(authUrl, 'rick@the-citadel.com', PASSWORD)).access_token;
    const morty = (await fetchToken(authUrl, 'morty@the-citadel.com', PASSWORD)).access_token;
    expect((await callResource(appUrl, 'DELETE', 'mega-seed', rick)).status).toBe(200);
    expect((await callResource(appUrl, 'DELETE', 'mega-seed', morty)).status).toBe(403);

    // Every edge (the sidecar, each app's) is connected, each on a named node.
    const relayUrl = `http://127.0.0.1:${front}`;
    const tenant: TenantCredentials = tenantFromDemo(readDemoTenantFile(join(dataDir, 'cluster')));
    const before = await until(
      `${EDGES} edges connected, each with info.node`,
      async () => {
        const list = await registrations(relayUrl, tenant);
        return allConnectedOn(list, (n) => n !== undefined && nodePids.has(n)) ? list : undefined;
      },
      FAILOVER_TIMEOUT_MS,
    );

    // Kill the node holding the first edge, like a crash.
    const victim = nodeOf(before[0]!)!;
    const victimIndex = Number(victim.slice('node-'.length));
    const victimEdges = before.filter((r) => nodeOf(r) === victim);
    process.kill(nodePids.get(victim)!, 'SIGKILL');
    const label = `control plane ${victimIndex}`;
    const logFile = join(dataDir, 'cluster', 'logs', `control-plane-${victimIndex}.log`);
    await until(
      'the launcher to report the dead node',
      async () => (output.includes(`${label} stopped (killed by SIGKILL; log ${logFile}); restarting in 0.25 s (restart 1 of 5 this minute)`) ? true : undefined),
      FAILOVER_TIMEOUT_MS,
      100,
    );

    // The launcher restarts it, under the same node id and on the same port.
    const restartedPid = await until(
      `${label} to be back`,
      async () => {
        const m = new RegExp(`${label} is back \\(restart 1, pid (\\d+)\\)`).exec(output);
        return m ? Number(m[1]) : undefined;
      },
      FAILOVER_TIMEOUT_MS,
    );
    expect(restartedPid).not.toBe(nodePids.get(victim));
    expect((await fetch(`http://127.0.0.1:${front + victimIndex}/healthz`)).status).toBe(200);

    // Every edge is connected again on a node of the cluster, those of the dead node over a
    // new socket; a command reaches each through the front.
    await until(
      'every edge connected again, those of the dead node anew',
      async () => {
        const list = await registrations(relayUrl, tenant);
        const again = victimEdges.every((old) => {
          const now = list.find((r) => r.id === old.id);
          return now !== undefined && Date.parse(now.info.connected_at) > Date.parse(old.info.connected_at);
        });
        return again && allConnectedOn(list, (n) => n !== undefined && nodePids.has(n)) ? true : undefined;
      },
      FAILOVER_TIMEOUT_MS,
    );
    for (const registration of before) {
      const reply = await until(
        `exec on ${registration.id} to answer 200`,
        async () => {
          const r = await exec(relayUrl, tenant, registration.id, 'discovery');
          return r.status === 200 ? r : undefined;
        },
        FAILOVER_TIMEOUT_MS,
      );
      expect(reply.body).toEqual({ result: {} });
    }
    expect(running()).toBe(true);
    expect(output).not.toContain('stays down');

    // Its processes again: the restarted node in place of the dead one, and nothing else new.
    started = childrenOf(child.pid!);
    expect(started.length).toBe(8);
    expect(started).toContain(restartedPid);
    expect(started).not.toContain(nodePids.get(victim));

    // SIGTERM: a clean exit, no process left, the throwaway servers gone with their folders.
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), STOP_TIMEOUT_MS)))]);
    clearTimeout(timer);
    expect(code).toBe(0);
    // Reparented to init once the launcher is gone, an exited child may linger a moment as a zombie.
    const left = () => started.filter((pid) => existsSync(`/proc/${pid}`));
    for (const deadline = Date.now() + 10_000; left().length > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(left().map((pid) => `${pid} ${commandLine(pid).join(' ')}`)).toEqual([]);
    expect(await accepts(pgPort)).toBe(false);
    expect(await accepts(redisPort)).toBe(false);
    expect(existsSync(pgDir!)).toBe(false);
  }, STARTUP_TIMEOUT_MS + 3 * FAILOVER_TIMEOUT_MS + STOP_TIMEOUT_MS);
});
