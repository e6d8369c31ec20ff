// Ratios against a baseline, paired round by round. Alternated runs (`alternate()`,
// `cpuPerRequest()` in load.ts) give each target one run per round, close in time to the
// baseline's run of that round. A ratio of medians taken across rounds can pair the target's
// quiet run with the baseline's noisy one and print a gain that is not there (bench:apps once
// printed "default stack ÷ bare Express 1.09 PASS" beside a CPU ratio of 0.63). Here each
// ratio is taken within one round, and its spread over the rounds is printed with it.
import { median } from './stats';
import { fmt, printTable, verdict } from './table';

/** One target's measurements, one entry per round, in round order (index r is round r + 1). */
export interface RoundSamples {
  /** Requests per second of the target's run in each round. */
  readonly rps: readonly number[];
  /** Server CPU µs per request of the target's run in each round (`cpuPerRequest`). */
  readonly cpuUs: readonly number[];
}

/** The per-round values of one ratio. */
export interface RatioSpread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/**
 * A target against a baseline, both oriented so that above 1 means the target is faster:
 * `rps` is target ÷ baseline req/s, `cpu` is baseline ÷ target CPU per request.
 */
export interface Comparison {
  readonly rps: RatioSpread;
  readonly cpu: RatioSpread;
}

/** `combine(a[r], b[r])` for every round r; both sides must cover the same rounds. */
function pairRounds(a: readonly number[], b: readonly number[], combine: (x: number, y: number) => number): number[] {
  if (a.length !== b.length || a.length === 0) {
    throw new Error(`per-round figures need one run per round on both sides (got ${a.length} and ${b.length})`);
  }
  return a.map((x, r) => combine(x, b[r] as number));
}

/** `numerators[r] / denominators[r]` for every round r. */
export function roundRatios(numerators: readonly number[], denominators: readonly number[]): number[] {
  return pairRounds(numerators, denominators, (n, d) => n / d);
}

/** Min, median and max of per-round ratios. */
export function spreadOf(ratios: readonly number[]): RatioSpread {
  return { min: Math.min(...ratios), median: median(ratios), max: Math.max(...ratios) };
}

/** The target against the baseline's run in the same round, for req/s and for CPU per request. */
export function compareRounds(baseline: RoundSamples, target: RoundSamples): Comparison {
  return {
    rps: spreadOf(roundRatios(target.rps, baseline.rps)),
    cpu: spreadOf(roundRatios(baseline.cpuUs, target.cpuUs)),
  };
}

/** `0.63 (0.60–0.66)`: the median, then the range over rounds, with `digits` decimals. */
export function formatSpread(spread: RatioSpread, digits = 2): string {
  return `${fmt(spread.median, digits)} (${fmt(spread.min, digits)}–${fmt(spread.max, digits)})`;
}

/**
 * Whether a ratio goal is met. The verdict reads the median per-round ratio of server CPU
 * per request: req/s moves with whatever else the shared cores run (the load generator
 * included), the server's own CPU clock much less.
 */
export function meetsGoal(comparison: Comparison, goal: number): boolean {
  return comparison.cpu.median >= goal;
}

/** A row for a goals table: both ratios with their spread, the verdict on CPU. */
export function goalRow(measure: string, comparison: Comparison, goal: number): string[] {
  return [measure, `CPU ${formatSpread(comparison.cpu)}; req/s ${formatSpread(comparison.rps)}`, `≥ ${goal} (CPU, median of rounds)`, verdict(meetsGoal(comparison, goal))];
}

/**
 * Whether a ratio between a layer and the layer below it says the added layer made things
 * faster by more than the ratio's own spread over rounds. Adding work cannot do that, so
 * such a figure is noise (or a broken measurement), never a gain to report.
 */
export function looksLikeNoise(vsBelow: RatioSpread): boolean {
  return vsBelow.median - 1 > vsBelow.max - vsBelow.min;
}

/** Samples per target label; throws on a label that was not measured. */
export type SamplesByLabel = ReadonlyMap<string, RoundSamples>;

function samplesOf(samples: SamplesByLabel, label: string): RoundSamples {
  const found = samples.get(label);
  if (!found) throw new Error(`no samples for ${label}`);
  return found;
}

const cpuMedian = (s: RoundSamples) => median(s.cpuUs);

/** Rows of {@link printComparisons}: each target's ratios to the baseline, per round. */
export function comparisonRows(samples: SamplesByLabel, baseline: string, targets: readonly string[]): (string | number)[][] {
  const base = samplesOf(samples, baseline);
  return targets.map((label) => {
    const c = compareRounds(base, samplesOf(samples, label));
    return [label, formatSpread(c.rps), formatSpread(c.cpu), cpuMedian(samplesOf(samples, label))];
  });
}

/** Prints each target against the baseline: req/s and CPU ratios, median (min–max) over rounds. */
export function printComparisons(samples: SamplesByLabel, baseline: string, targets: readonly string[]): void {
  printTable(
    ['target', `req/s: this ÷ ${baseline}`, `CPU per request: ${baseline} ÷ this`, 'CPU µs per request (median)'],
    comparisonRows(samples, baseline, targets),
  );
}

/**
 * Rows of {@link printLayers}: layers in the order they stack up, the first the baseline.
 * What a layer adds is the median over rounds of its CPU per request minus the layer
 * below's in the same round; a layer that looks faster than the one below is `noise?`.
 */
export function layerRows(samples: SamplesByLabel, layers: readonly string[]): (string | number)[][] {
  const base = samplesOf(samples, layers[0] as string);
  return layers.map((label, i) => {
    const own = samplesOf(samples, label);
    const toBase = compareRounds(base, own);
    const row = [label, formatSpread(toBase.rps), formatSpread(toBase.cpu), cpuMedian(own)];
    if (i === 0) return [...row, '—', '—'];
    const below = samplesOf(samples, layers[i - 1] as string);
    const vsBelow = compareRounds(below, own);
    const noise = looksLikeNoise(vsBelow.rps) || looksLikeNoise(vsBelow.cpu);
    const adds = median(pairRounds(own.cpuUs, below.cpuUs, (x, y) => x - y));
    return [...row, `CPU ${formatSpread(vsBelow.cpu)}; req/s ${formatSpread(vsBelow.rps)}`, noise ? 'noise?' : fmt(adds, 1)];
  });
}

/** Prints the layer-by-layer table; the first layer is the baseline. */
export function printLayers(samples: SamplesByLabel, layers: readonly string[]): void {
  const base = layers[0] as string;
  printTable(
    ['layer', `req/s: this ÷ ${base}`, `CPU per request: ${base} ÷ this`, 'CPU µs per request (median)', 'against the layer below (above 1: faster)', 'this layer adds CPU µs'],
    layerRows(samples, layers),
  );
}
