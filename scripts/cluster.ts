// The whole stack in cluster mode on one machine: several control-plane nodes sharing one
// PostgreSQL and one Redis, behind a round-robin TCP front on the control plane's usual
// port, so edges, apps, scripts and the console reach "the control plane" without knowing
// there are several. docs/guide/06-more-than-one-node.md.
//
//   npm run cluster                  # 3 nodes, throwaway PostgreSQL and Redis
//   npm run cluster -- --nodes 2
//   DATABASE_URL=postgres://… REDIS_URL=redis://… npm run cluster   # your own servers
//
// Without DATABASE_URL / REDIS_URL it starts Debian's postgres and redis-server itself, in
// temporary folders on free loopback ports, and removes them when it stops: the cluster's
// tenants last as long as the command. Its data (IdP keys, demo tenant file, logs) goes to
// `<OUTPOST_DATA_DIR>/cluster`, so it never mixes with the one-process stack's. A node that
// dies is restarted like any component of `npm start` (`src/stack/restart-policy.ts`): killing
// one is how failover is tried, and the cluster is whole again a moment later.
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../src/config';
import { redactDatabaseUrl } from '../src/sql';
import { banner } from '../src/stack/banner';
import { registrationCheck } from '../src/stack/check-registrations';
import { findPortConflicts } from '../src/stack/check-ports';
import { stackComponents, type Component } from '../src/stack/components';
import { entryFile } from '../src/stack/run-component';
import { runStack } from '../src/stack/run-stack';
import { durabilityLine, startLocalPostgres, type LocalPostgres } from './lib/local-postgres';
import { startLocalRedis, type LocalRedis } from './lib/local-redis';
import { startRoundRobinFront, type RoundRobinFront } from './lib/round-robin-front';
import { scriptCommand } from './lib/script-command';

/** More nodes than this on one 2-core machine measure only the machine. */
const MAX_NODES = 8;

function parseNodes(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_NODES) throw new InvalidArgumentError(`a whole number from 1 to ${MAX_NODES}`);
  return n;
}

/** The engines the nodes share: the caller's, or throwaway local ones this command owns. */
interface Engines {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly owned: { postgres?: LocalPostgres; redis?: LocalRedis };
}

async function startEngines(env: NodeJS.ProcessEnv, durable: boolean): Promise<Engines> {
  const owned: Engines['owned'] = {};
  try {
    let databaseUrl = env.DATABASE_URL;
    if (databaseUrl === undefined) {
      process.stdout.write('starting a throwaway PostgreSQL … ');
      owned.postgres = await startLocalPostgres({ durable });
      databaseUrl = owned.postgres.url;
      console.log(`ready (${owned.postgres.url}), ${durabilityLine(durable)}`);
    }
    let redisUrl = env.REDIS_URL;
    if (redisUrl === undefined) {
      process.stdout.write('starting a throwaway Redis … ');
      owned.redis = await startLocalRedis();
      redisUrl = owned.redis.url;
      console.log(`ready (${owned.redis.url})`);
    }
    return { databaseUrl, redisUrl, owned };
  } catch (err) {
    await stopEngines(owned);
    throw err;
  }
}

async function stopEngines(owned: Engines['owned']): Promise<void> {
  await owned.redis?.stop();
  await owned.postgres?.stop();
}

/**
 * The stack's components with the one control plane replaced by `nodes` nodes on the ports
 * after the control plane's, each named `node-<i>` in Redis; the IdP keeps its OIDC storage
 * in the same PostgreSQL. The first node alone seeds an
 * empty database; it starts first and the launcher waits for it, so the others, started
 * together after it, find the demo tenant there. What waits for the control plane (the edge,
 * the apps) waits for every node.
 */
export function clusterComponents(config: Config, nodes: number, engines: { databaseUrl: string; redisUrl: string }): Component[] {
  const components: Component[] = [];
  const nodeNames = Array.from({ length: nodes }, (_v, i) => `control-plane-${i + 1}`);
  for (const component of stackComponents(config)) {
    if (component.name === 'idp') {
      // The IdP's codes, refresh tokens and sessions go to PostgreSQL too (its own tables).
      components.push({ ...component, env: { ...component.env, DATABASE_URL: engines.databaseUrl } });
      continue;
    }
    if (component.name !== 'control-plane') {
      // What waits for the control plane waits for every node (edges reach them through the front).
      const waitsFor = component.waitsFor?.flatMap((name) => (name === 'control-plane' ? nodeNames : [name]));
      components.push(waitsFor === undefined ? component : { ...component, waitsFor });
      continue;
    }
    for (let i = 1; i <= nodes; i += 1) {
      const port = config.controlPlane.port + i;
      // The first node after the IdP (waitsFor unset: the one before it); it alone seeds the
      // database, so the others start together once it is ready (they migrate under a lock).
      components.push({
        ...(i === 1 ? {} : { waitsFor: ['control-plane-1'] }),
        name: `control-plane-${i}`,
        label: `control plane ${i}`,
        entry: component.entry,
        url: `http://${config.host}:${port}`,
        port,
        portVar: 'CONTROL_PLANE_PORT',
        readyPath: component.readyPath,
        identity: component.identity,
        env: {
          CONTROL_PLANE_PORT: String(port),
          // Edges and callers reach every node through the front, on the usual URL.
          RELAY_URL: config.controlPlane.url,
          RELAY_NODE_ID: `node-${i}`,
          DATABASE_URL: engines.databaseUrl,
          REDIS_URL: engines.redisUrl,
        },
      });
    }
  }
  return components;
}

async function main(): Promise<void> {
  const options = scriptCommand(
    'npm run cluster --',
    'several control-plane nodes on PostgreSQL and Redis behind a round-robin front, plus the rest of the stack; throwaway PostgreSQL and Redis unless DATABASE_URL and REDIS_URL are set',
    'npm run cluster -- --nodes 2',
  )
    .option('--nodes <n>', `control-plane nodes (1–${MAX_NODES})`, parseNodes, 3)
    .option('--durable', "the throwaway PostgreSQL keeps its durability settings (slower; an acknowledged write survives a crash)", false)
    .parse()
    .opts<{ nodes: number; durable: boolean }>();

  // The cluster keeps its own data folder: its demo tenant lives in PostgreSQL, not in the
  // one-process stack's SQLite file, and must not overwrite that stack's demo-tenant.json.
  process.env.OUTPOST_DATA_DIR = join(process.env.OUTPOST_DATA_DIR ?? '.data', 'cluster');
  const config = loadConfig();
  const probe = clusterComponents(config, options.nodes, { databaseUrl: '', redisUrl: '' });
  const front = { ...stackComponents(config).find((c) => c.name === 'control-plane')!, label: 'round-robin front' };
  const conflicts = await findPortConflicts([front, ...probe], config.host);
  if (conflicts.length > 0) {
    for (const line of conflicts) console.error(line);
    process.exit(1);
  }

  const engines = await startEngines(process.env, options.durable);
  let rr: RoundRobinFront | undefined;
  const stopOwned = async () => {
    await rr?.close();
    await stopEngines(engines.owned);
  };
  try {
    const components = clusterComponents(config, options.nodes, engines);
    const nodes = components.filter((c) => c.name.startsWith('control-plane-'));
    rr = await startRoundRobinFront({ port: config.controlPlane.port, backends: nodes.map((c) => `127.0.0.1:${c.port}`) });
    const logDir = join(config.dataDir, 'logs');
    mkdirSync(logDir, { recursive: true, mode: 0o700 });
    await runStack({
      components: components.flatMap((component) => {
        const file = entryFile(component);
        return file ? [{ component, file }] : [];
      }),
      host: config.host,
      logDir,
      readyTimeoutMs: 30_000,
      onStopped: stopOwned,
      // Through the front, as the scripts reach it: every edge registered on some node.
      verify: registrationCheck(config, undefined, 'postgres'),
      onReady: (started, edges) => {
        const dataDir = relative(process.cwd(), config.dataDir) || '.';
        console.log(banner(config, started.map((r) => r.component), edges));
        console.log(
          [
            'Cluster mode:',
            `  round-robin front ${config.controlPlane.url}  (edges, apps, scripts and the console use this; each connection goes to the next node)`,
            `  console           ${config.controlPlane.consoleUrl}`,
            ...started
              .filter((r) => r.component.name.startsWith('control-plane-'))
              .map((r) => `  ${r.component.label.padEnd(17)} ${r.component.url}  (RELAY_NODE_ID=${r.component.env!.RELAY_NODE_ID}, pid ${r.child.pid})`),
            `  PostgreSQL        ${redactDatabaseUrl(engines.databaseUrl)}${engines.owned.postgres ? '  (throwaway: removed when this stops)' : ''}`,
            `  Redis             ${redactDatabaseUrl(engines.redisUrl)}${engines.owned.redis ? '  (throwaway: removed when this stops)' : ''}`,
            '',
            `The scripts read the demo tenant from ${join(dataDir, 'demo-tenant.json')}; in another terminal first:`,
            `  export OUTPOST_DATA_DIR=${dataDir}`,
            '  npm run try-delete',
            `  I=$(npm run -s find-instance -- "$(node -p "require('./${dataDir}/demo-tenant.json').connection_id")")`,
            '  npm run relay-exec -- sync_edge_directory --instance "$I"   # routed to the node holding its socket',
            '  kill -9 <pid of a node above>     # its edges reconnect to the other nodes; the launcher restarts it and prints its new pid',
            'docs/guide/06-more-than-one-node.md has the rest.',
            '',
          ].join('\n'),
        );
      },
    });
  } catch (err) {
    await stopOwned();
    throw err;
  }
}

// Only when run: a test imports clusterComponents without starting a cluster.
if (require.main === module) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
