// AuthZEN search cost as the directory grows:  npm run bench:search
//
// One process, this one: the decision core (policies/authzen-search compiled, Cedar
// in-process, decision cache off so every candidate is evaluated) over a directory of 50
// users and 100, 1,000 or 10,000 records. For each size it asks "which records may this
// user view?" two ways, alternating within each round: the resource search the edge
// serves (src/decision search(), every page followed) and, as the baseline, the same
// candidates evaluated one by one. The ratio is taken per round against that round's
// baseline and printed as min/median/max; above 1 means the search is cheaper. The two
// answers are checked equal before anything is timed.
//
// Then over HTTP: the bench control plane and a real sidecar edge (child processes this
// script forks, as bench:relay does; the demo tenant, policy rbac, 5 users, 4 resources),
// one client back to back: evaluation beside each search, p50/p99.
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { startBenchStack } from './lib/bench-stack';
import type { BenchChild } from './lib/child-harness';
import { closeCalls } from './lib/control-plane-calls';
import { sequentialLatency } from './lib/load';
import { createLocalAuthorizer, search, SEARCH_LIMITS, type SearchQuestion } from '../../src/decision';
import type { SearchRequest } from '../../src/decision-protocol';
import type { DirectoryData } from '../../src/directory';
import { compilePolicyImage, readPolicyFolder } from '../../src/policy';
import { roundRatios, spreadOf, formatSpread } from './lib/compare-rounds';
import { summarize } from './lib/stats';
import { fmt, machineLine, printTable } from './lib/table';
import { scriptCommand } from '../lib/script-command';

const SIZES = [100, 1_000, 10_000] as const;
const USERS = 50;
const ROUNDS = 5;
/** Searches per round and size: about the same work per size. */
const SEARCHES = { 100: 100, 1_000: 10, 10_000: 2 } as const;
const DEPARTMENTS = ['Sales', 'Legal', 'Finance', 'Accounting', 'Engineering'];

/** A directory of `records` records; deterministic, so every run asks the same questions. */
function directoryOf(records: number): DirectoryData {
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `user-${String(i).padStart(3, '0')}`,
    email: `user${i}@bench.example`,
    name: `User ${i}`,
    roles: [i % 10 === 0 ? 'manager' : 'employee'],
    properties: { department: DEPARTMENTS[i % DEPARTMENTS.length]! },
  }));
  const resources = Array.from({ length: records }, (_, i) => ({
    id: String(100_000 + i),
    type: 'record',
    properties: { department: DEPARTMENTS[(i * 7) % DEPARTMENTS.length]!, owner: users[(i * 13) % USERS]!.id },
    relations: { owner: [], writer: [], reader: [] },
  }));
  return { revision: 1, roles: [{ id: 'manager', includes: [] }, { id: 'employee', includes: [] }], users, resources };
}

/** CPU µs and wall ms of `work`. */
function measure(work: () => void): { cpuUs: number; ms: number } {
  const cpu = cpuUsage();
  const started = process.hrtime.bigint();
  work();
  const used = cpuUsage(cpu);
  return { cpuUs: used.user + used.system, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/** Sequential requests per endpoint over HTTP. */
const HTTP_REQUESTS = 2_000;

/** Evaluation and the three searches on a real sidecar, p50/p99 of one client back to back. */
async function overHttp(mortyId: string): Promise<void> {
  const children: BenchChild[] = [];
  try {
    const { edge } = await startBenchStack(children);
    const user = { type: 'user', id: mortyId };
    const targets = [
      ['evaluation', '/access/v1/evaluation', { subject: user, action: { name: 'GET' }, resource: { type: 'Resource', id: 'mega-seed' } }],
      ['subject search (5 users)', '/access/v1/search/subject', { subject: { type: 'user' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'mega-seed' } }],
      ['resource search (4 resources)', '/access/v1/search/resource', { subject: user, action: { name: 'GET' }, resource: { type: 'Resource' } }],
      ['action search (4 actions)', '/access/v1/search/action', { subject: user, resource: { type: 'Resource', id: 'mega-seed' } }],
    ] as const;
    const rows: (string | number)[][] = [];
    for (const [label, path, body] of targets) {
      const latency = await sequentialLatency({ label, url: `${edge.edgeUrl}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, HTTP_REQUESTS);
      rows.push([label, String(latency.count), latency.p50, latency.p99, latency.max]);
    }
    console.log('\nOver HTTP on the sidecar (demo tenant, policy rbac; decision cache on, as shipped):');
    printTable(['request', 'n', 'p50 ms', 'p99 ms', 'max ms'], rows, 3);
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }
}

async function main(): Promise<void> {
  console.log(`Search bench: ${machineLine()}\n`);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const policy = compilePolicyImage(readPolicyFolder(join(config.policiesDir, 'authzen-search')));
  const rows: (string | number)[][] = [];
  try {
    for (const size of SIZES) {
      const directory = directoryOf(size);
      const authorizer = createLocalAuthorizer({ policy: () => policy, directory: () => directory, cacheSize: 0 });
      const decide = (q: SearchQuestion) =>
        authorizer.decideNow({ principal: q.subject.id, action: q.action.name, resource: { type: q.resource.type, id: q.resource.id }, policyPath: `authzen-search.${q.action.name}` })
          .allowed;
      const ids = directory.resources.map((r) => r.id).sort();
      const subjects = directory.users.map((u) => u.id);

      const viaSearch = (subject: string) => {
        const found: string[] = [];
        let pages = 0;
        let token = '';
        do {
          const request: SearchRequest = { subject: { type: 'user', id: subject }, action: { name: 'view' }, resource: { type: 'record' }, page: token ? { token } : {} };
          const { response } = search('resource', request, { directory, schema: policy.schema, decide, now: Date.now });
          for (const r of response.results) found.push((r as { id: string }).id);
          token = response.page?.next_token ?? '';
          pages += 1;
        } while (token);
        return { found, pages };
      };
      const oneByOne = (subject: string) => ids.filter((id) => decide({ subject: { type: 'user', id: subject }, action: { name: 'view' }, resource: { type: 'record', id } }));

      // The answers must agree before their costs mean anything.
      for (const s of subjects.slice(0, 5)) {
        if (viaSearch(s).found.join() !== oneByOne(s).join()) throw new Error(`search and evaluation disagree for ${s} over ${size} records`);
      }

      const searchMs: number[] = [];
      const baselineMs: number[] = [];
      const searchCpu: number[] = [];
      const baselineCpu: number[] = [];
      let pages = 0;
      const n = SEARCHES[size];
      for (let round = 0; round < ROUNDS; round += 1) {
        const asked = Array.from({ length: n }, (_, i) => subjects[(round * n + i) % subjects.length]!);
        let base = 0;
        let mine = 0;
        for (const s of asked) {
          const b = measure(() => oneByOne(s));
          baselineMs.push(b.ms);
          base += b.cpuUs;
          const m = measure(() => {
            pages = viaSearch(s).pages;
          });
          searchMs.push(m.ms);
          mine += m.cpuUs;
        }
        baselineCpu.push(base / n);
        searchCpu.push(mine / n);
      }
      const s = summarize(searchMs);
      const b = summarize(baselineMs);
      const ratio = spreadOf(roundRatios(baselineCpu, searchCpu));
      rows.push([String(size), s.p50, s.p99, b.p50, b.p99, String(pages), formatSpread(ratio), fmt(size / s.p50, 0)]);
    }
  } finally {
    policy.release();
  }
  printTable(['records', 'search p50 ms', 'search p99 ms', 'one by one p50 ms', 'one by one p99 ms', 'pages', 'CPU one by one ÷ search (min–max of rounds)', 'candidates per ms'], rows, 2);
  console.log(`\nA page ends at ${SEARCH_LIMITS.maxCandidates} candidates or ${SEARCH_LIMITS.timeBudgetMs} ms; "search" is every page of one search.`);

  const morty = loadDirectorySeed(config.directorySeedFile).directory.users.find((u) => u.email === 'morty@the-citadel.com');
  if (!morty) throw new Error('morty is not in the seed directory');
  await overHttp(morty.id);
}

scriptCommand(
  'npm run bench:search --',
  'AuthZEN search cost at 100, 1,000 and 10,000 records against evaluating the same candidates one by one, then evaluation and the three searches over HTTP on a real sidecar',
  'npm run bench:search',
).parse();

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
