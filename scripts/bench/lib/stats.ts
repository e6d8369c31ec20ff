/** Summary statistics for benchmark samples (milliseconds unless said otherwise). */

/** Nearest-rank percentile (p in 0–100) of already sorted samples; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** The median of unsorted values (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** p50, p99, mean and max of a latency sample. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, v) => sum + v, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.length ? total / sorted.length : Number.NaN,
    max: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

/** Milliseconds since a `process.hrtime.bigint()` reading. */
export function msSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Runs `run` once per iteration, sequentially, and returns each run's duration in ms. */
export async function timeEach(iterations: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = process.hrtime.bigint();
    await run(i);
    samples.push(msSince(started));
  }
  return samples;
}

/** Mean duration in ms of `iterations` sequential runs. */
export async function meanMs(iterations: number, run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) await run();
  return msSince(started) / iterations;
}
