// Does any process of the stack die under ordinary, changing load?  npm run bench:stress
//
//   npm run bench:stress                         # on this machine's Node, ~2 minutes
//   npm run bench:stress -- --node 22 --node 24  # on other Nodes, one after the other
//
// Starts the whole stack (IdP, control plane, sidecar edge, RBAC and todo apps, each its own
// process, as `npm start` does) on free loopback ports, and runs mixed-shape load against the
// sidecar and both apps (lib/stress-load.ts) while the directory changes and policy images are
// pushed, each followed by the relay command to every edge. Prints, per Node: requests,
// errors (5xx, resets, time-outs), answers with a status the request should not get, crashes
// (with what the process said as it died) and memory before and after. A process that dies is counted and started again, so the run goes on.
// Exits 1 when anything crashed: a crash is a bug, not a figure.
import { InvalidArgumentError } from 'commander';
import { loadDirectorySeed } from '../../src/directory';
import { createPolicyImage, readPolicyFolder } from '../../src/policy';
import { findProjectRoot } from '../../src/config';
import { callTenantApi } from '../lib/call-tenant-api';
import { fetchToken } from '../lib/fetch-token';
import { execRelayCommand, listInstanceRegistrations } from '../lib/relay-client';
import { loadTenantCredentials } from '../lib/tenant-credentials';
import { join } from 'node:path';
import { currentRuntime, prepareRuntime, type NodeRuntime } from '../lib/node-runtime';
import { startStressStack, type Crash, type StressStack } from './lib/stress-stack';
import { runPhase, stressPhases } from './lib/stress-load';
import { fmt, machineLine, printTable } from './lib/table';
import { scriptCommand } from '../lib/script-command';

interface Options {
  readonly node: string[];
  readonly seconds: number;
  readonly phaseSeconds: number;
}

interface RunSummary {
  readonly runtime: NodeRuntime;
  readonly requests: number;
  readonly errors: number;
  /** Answers whose status the phase did not expect (a 401 where 200 was due…). */
  readonly unexpected: number;
  readonly changes: number;
  readonly crashes: readonly Crash[];
  readonly rssBefore: Record<string, number>;
  readonly rssAfter: Record<string, number>;
  readonly restarted: string[];
}

const seconds = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600) throw new InvalidArgumentError('a whole number of seconds, 1–3600');
  return n;
};

/**
 * Between phases, while the next one runs: a directory change (Morty's admin role granted or
 * revoked) or, every fourth time, a changed rbac image pushed; then the matching command sent
 * to every edge, so each swaps its state under load.
 */
async function change(stack: StressStack, round: number, rbacFiles: Readonly<Record<string, string>>): Promise<void> {
  const admin = loadTenantCredentials(stack.config, 'admin');
  const discovery = loadTenantCredentials(stack.config, 'discovery');
  let command: 'sync_edge_directory' | 'discovery';
  if (round % 4 === 3) {
    const files = { ...rbacFiles, 'stress.cedar': `// stress round ${round}: no policy, only a new digest\n` };
    await callTenantApi(admin, { method: 'POST', path: '/api/v2/admin/policies/rbac', body: { files: createPolicyImage('rbac', files).files } });
    command = 'discovery';
  } else {
    const method = round % 2 === 0 ? 'PUT' : 'DELETE';
    await callTenantApi(admin, { method, path: '/api/v2/admin/directory/users/morty%40the-citadel.com/roles/admin' });
    command = 'sync_edge_directory';
  }
  const instances = (await listInstanceRegistrations(discovery)).filter((r) => r.info.connected);
  await Promise.all(instances.map((r) => execRelayCommand(discovery, r.id, command)));
}

async function stressOn(runtime: NodeRuntime, options: Options, projectRoot: string): Promise<RunSummary> {
  console.log(`\n## Node ${runtime.version}\n`);
  const stack = await startStressStack(runtime);
  try {
    const { config } = stack;
    const seed = loadDirectorySeed(config.directorySeedFile);
    const idOf = (email: string) => seed.directory.users.find((u) => u.email === email)?.id as string;
    const token = async (email: string) => (await fetchToken(config.idp.url, email, seed.demoPassword)).access_token;
    const phases = stressPhases({
      edgeUrl: config.edge.url,
      rbacUrl: config.apps.rbacUrl,
      todoUrl: config.apps.todoUrl,
      principals: [idOf('rick@the-citadel.com'), idOf('morty@the-citadel.com'), idOf('beth@the-smiths.com'), 'summer@the-smiths.com', 'nobody-in-the-directory'],
      adminToken: await token('rick@the-citadel.com'),
      editorToken: await token('morty@the-citadel.com'),
    });
    const rbacFiles = readPolicyFolder(join(projectRoot, 'policies', 'rbac')).files;
    const rssBefore = stack.rssMiB();
    const deadline = Date.now() + options.seconds * 1000;
    let requests = 0;
    let errors = 0;
    let unexpected = 0;
    let changes = 0;
    console.log('| phase | requests | errors | unexpected statuses | crashes so far |');
    console.log('|---|---:|---:|---|---:|');
    for (let i = 0; Date.now() < deadline; i += 1) {
      const phase = phases[i % phases.length]!;
      const changing = change(stack, i, rbacFiles).then(
        () => (changes += 1),
        (err: unknown) => console.log(`  (change ${i} failed: ${(err as Error).message})`),
      );
      const result = await runPhase(phase, options.phaseSeconds);
      await changing;
      requests += result.requests;
      errors += result.errors;
      const odd = Object.entries(result.unexpected);
      for (const [, count] of odd) unexpected += count;
      const shown = odd.map(([status, count]) => `${count} × ${status}`).join(', ') || '-';
      console.log(`| ${phase.label} | ${result.requests} | ${result.errors} | ${shown} | ${stack.crashes.length} |`);
    }
    return { runtime, requests, errors, unexpected, changes, crashes: [...stack.crashes], rssBefore, rssAfter: stack.rssMiB(), restarted: stack.restarted() };
  } finally {
    await stack.stop();
  }
}

async function main(options: Options): Promise<void> {
  console.log(`Stress bench: ${machineLine()}`);
  const projectRoot = findProjectRoot(__dirname);
  const wanted = options.node.length > 0 ? options.node : [process.versions.node];
  const runtimes = wanted.map((v) => (v === process.versions.node ? currentRuntime(projectRoot) : prepareRuntime(v, projectRoot, (line) => console.log(line))));
  const summaries: RunSummary[] = [];
  for (const runtime of runtimes) summaries.push(await stressOn(runtime, options, projectRoot));

  console.log(`\n## Summary (${options.seconds} s of load per Node, phases of ${options.phaseSeconds} s; ${machineLine()})\n`);
  printTable(
    ['Node', 'requests', 'errors (5xx, resets, time-outs)', 'unexpected statuses', 'directory changes + pushes', 'crashes'],
    summaries.map((s) => [s.runtime.version, String(s.requests), String(s.errors), String(s.unexpected), String(s.changes), String(s.crashes.length)]),
  );
  for (const s of summaries) {
    console.log(`\nNode ${s.runtime.version}: resident memory per process, MiB (before load → after)`);
    printTable(
      ['process', 'before', 'after'],
      Object.keys(s.rssBefore).map((name) => [s.restarted.includes(name) ? `${name} (restarted)` : name, fmt(s.rssBefore[name] ?? NaN, 0), fmt(s.rssAfter[name] ?? NaN, 0)]),
    );
    for (const crash of s.crashes) console.log(`  crash: ${crash.component} (${crash.how}): ${crash.said}`);
  }
  if (summaries.some((s) => s.crashes.length > 0)) process.exitCode = 1;
}

scriptCommand(
  'npm run bench:stress --',
  'Mixed-shape load against the whole stack on one or more Node versions; counts crashes (exit 1 if any).',
  'npm run bench:stress -- --node 22 --node 24',
)
  .option('--node <version>', 'run on this Node (a major such as 24, or exact); repeat for several; fetched from the npm registry into the temp folder', (v: string, all: string[]) => [...all, v], [])
  .option('--seconds <n>', 'seconds of load per Node', seconds, 100)
  .option('--phase-seconds <n>', 'seconds per load shape before the next one', seconds, 2)
  .action((options: Options) =>
    main(options).catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 2;
    }),
  )
  .parse();
