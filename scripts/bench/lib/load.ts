import http from 'node:http';
import autocannon from 'autocannon';
import type { RoundSamples } from './compare-rounds';
import { median, summarize, timeEach, type LatencySummary } from './stats';
import { printTable } from './table';

/** One HTTP endpoint to load: every request is the same. */
export interface LoadTarget {
  readonly label: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The status every answer should have (default: any 2xx); others count as failures. */
  readonly expectStatus?: number;
  /** Each `[<id>]` in the body becomes a fresh number in every request: no two requests alike. */
  readonly uniqueIds?: boolean;
}

/** Connections, duration and (optionally) a fixed offered rate across all connections. */
export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  /** Total requests per second to offer; unset means as fast as the server answers. */
  readonly overallRate?: number;
  /** Seconds before a request counts as timed out (default 10). */
  readonly timeoutSeconds?: number;
  /**
   * Requests to send in all, spread over the connections; the run ends when every one is
   * answered and `durationSeconds` is not used. Nothing is left in flight at the end, so
   * the server's CPU clock read after the run holds the work of exactly these requests.
   */
  readonly amount?: number;
}

export interface LoadResult {
  readonly label: string;
  /** Completed requests per second over the whole run. */
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** 2xx responses per second over the whole run. */
  readonly okRps: number;
  /** 2xx responses in all. */
  readonly ok: number;
  /** How long the run took, in seconds. */
  readonly seconds: number;
  /** 503 answers: load the server shed on purpose (e.g. the IdP's bounded hashing queue). */
  readonly shed: number;
  /**
   * Answers other than the expected ones (2xx but for 503s, or exactly the target's
   * `expectStatus`) plus connection errors and timeouts: any of them spoils the run.
   */
  readonly failures: number;
}

/** A request hook putting a new number in place of every `[<id>]` of `body`, per request. */
function freshIds(body: string): (request: autocannon.Request) => autocannon.Request {
  let next = 0;
  return (request) => {
    next += 1;
    return { ...request, body: body.replaceAll('[<id>]', String(next)) };
  };
}

/** Loads one target with autocannon (loopback only) and reduces the result. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const started = process.hrtime.bigint();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method ?? 'GET',
        headers: target.headers ?? {},
        ...(target.body === undefined ? {} : { body: target.body }),
        // Built per request (autocannon's own idReplacement declares a Content-Length its ids do not always fill).
        ...(target.uniqueIds && target.body !== undefined ? { requests: [{ setupRequest: freshIds(target.body) }] } : {}),
        connections: options.connections,
        ...(options.amount === undefined ? { duration: options.durationSeconds } : { amount: options.amount }),
        ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
        timeout: options.timeoutSeconds ?? 10,
      },
      (err: unknown, res) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res)),
    );
    // With `amount`, autocannon notices the last answer only at its next once-a-second tick,
    // so its duration is rounded up to whole seconds; the run really ends at the last answer.
    if (options.amount !== undefined) instance.on('response', () => (lastAnswer = process.hrtime.bigint()));
  });
  const measured = options.amount === undefined ? result.duration : Number(lastAnswer - started) / 1e9;
  const seconds = measured > 0 ? measured : options.durationSeconds;
  const byStatus = (result.statusCodeStats as Record<string, { count: number }> | undefined) ?? {};
  const shed = byStatus['503']?.count ?? 0;
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  const unexpected = target.expectStatus === undefined ? result.non2xx - shed : answered - (byStatus[String(target.expectStatus)]?.count ?? 0);
  return {
    label: target.label,
    rps: result.requests.total / seconds,
    okRps: result['2xx'] / seconds,
    ok: result['2xx'],
    seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    shed,
    failures: unexpected + result.errors + result.timeouts,
  };
}

/** Per-target runs of {@link alternate}, with their medians. */
export interface AlternatedResults {
  readonly runs: ReadonlyMap<string, LoadResult[]>;
  medianRps(label: string): number;
  medianP99(label: string): number;
  /** req/s of each run of the target, in round order (one run per round). */
  rpsRounds(label: string): number[];
}

/**
 * Warms every target up, then runs them in turn (A, B, C, then B, C, A, …) for `rounds`
 * rounds, printing one table row per run as it completes. Alternating spreads the
 * machine's background noise over all targets instead of biasing one of them.
 */
export async function alternate(
  targets: readonly LoadTarget[],
  options: LoadOptions & { readonly rounds: number; readonly warmupSeconds: number },
): Promise<AlternatedResults> {
  for (const target of targets) await runLoad(target, { ...options, durationSeconds: options.warmupSeconds });
  const runs = new Map<string, LoadResult[]>(targets.map((t) => [t.label, []]));
  console.log('| round | target | req/s | p50 ms | p99 ms | failures |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (let round = 1; round <= options.rounds; round += 1) {
    // Rotated each round, so no target always follows the same one (a heavy run can leave
    // GC or JIT work behind that the next run pays for).
    const order = targets.map((_t, i) => targets[(i + round - 1) % targets.length] as LoadTarget);
    for (const target of order) {
      const result = await runLoad(target, options);
      runs.get(target.label)?.push(result);
      console.log(`| ${round} | ${target.label} | ${result.rps.toFixed(0)} | ${result.p50} | ${result.p99} | ${result.failures} |`);
    }
  }
  const pick = (label: string, field: 'rps' | 'p99') => median((runs.get(label) ?? []).map((r) => r[field]));
  return {
    runs,
    medianRps: (label) => pick(label, 'rps'),
    medianP99: (label) => pick(label, 'p99'),
    rpsRounds: (label) => (runs.get(label) ?? []).map((r) => r.rps),
  };
}

/** Prints the medians of alternated runs as a table. */
export function printMedians(results: AlternatedResults): void {
  console.log('');
  printTable(
    ['target', 'median req/s', 'median p50 ms', 'median p99 ms', 'failures (all runs)'],
    [...results.runs].map(([label, runs]) => [
      label,
      median(runs.map((r) => r.rps)),
      median(runs.map((r) => r.p50)),
      median(runs.map((r) => r.p99)),
      String(runs.reduce((sum, r) => sum + r.failures, 0)),
    ]),
  );
}

/**
 * Latency of one client sending `requests` requests back to back over one keep-alive
 * connection, each timed with `process.hrtime.bigint()` (autocannon reports whole
 * milliseconds, too coarse here). This is service time without queueing.
 */
export async function sequentialLatency(target: LoadTarget, requests: number): Promise<LatencySummary> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(target.url, { method: target.method ?? 'GET', headers: target.headers ?? {}, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${target.label} answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(target.body);
    });
  try {
    for (let i = 0; i < Math.min(500, requests); i += 1) await send();
    return summarize(await timeEach(requests, send));
  } finally {
    agent.destroy();
  }
}

/** Per-target results of {@link cpuPerRequest}. */
export interface CpuPerRequestResults {
  /** Server CPU µs per request of each run, per target, in round order (one run per round). */
  readonly runs: ReadonlyMap<string, readonly number[]>;
  median(label: string): number;
}

/**
 * CPU time the server process spends per request, per target: the child's CPU clock read
 * before and after each run, divided by the requests completed; one run per target per
 * round, alternated. Unlike requests per second, this barely moves when other processes
 * compete for the machine's cores, so ratios of it are the steadier figure on shared hosts.
 * Keep the per-round runs: a ratio is taken within a round (`compare-rounds.ts`).
 */
export async function cpuPerRequest(
  targets: readonly LoadTarget[],
  server: { call<T>(name: string): Promise<T> },
  options: LoadOptions & { readonly rounds: number },
): Promise<CpuPerRequestResults> {
  const runs = new Map<string, number[]>(targets.map((t) => [t.label, []]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const target of targets.map((_t, i) => targets[(i + round) % targets.length] as LoadTarget)) {
      const before = await server.call<number>('cpu');
      const result = await runLoad(target, options);
      const after = await server.call<number>('cpu');
      runs.get(target.label)?.push((after - before) / Math.max(1, result.rps * options.durationSeconds));
    }
  }
  return { runs, median: (label) => median(runs.get(label) ?? []) };
}

/** Each target's req/s runs ({@link alternate}) and CPU runs ({@link cpuPerRequest}), by label. */
export function roundSamples(results: AlternatedResults, cpu: CpuPerRequestResults): Map<string, RoundSamples> {
  return new Map([...results.runs.keys()].map((label) => [label, { rps: results.rpsRounds(label), cpuUs: [...(cpu.runs.get(label) ?? [])] }]));
}
