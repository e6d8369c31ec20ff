// The hot-path cost of decision records (docs/reference/api.md, "Decision records"): what an
// embedded edge's authorizeNow() adds to a decision to queue its record — two clock reads and a
// slot write — measured against the same decisions without it, in the same process, round by
// round. The edge's shipper runs meanwhile in both (it is a timer, never on the decision's path).
import type { AuthorizationRequest } from '../../../src/decision';
import type { EdgeRuntime } from '../../../src/edge';
import { median } from './stats';
import { printTable } from './table';

/** Per-round figures: ns per decision without and with recording, and the difference. */
export interface RecordCost {
  readonly withoutNs: number[];
  readonly withNs: number[];
  readonly addedNs: number[];
}

function timeLoop(iterations: number, run: () => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) run();
  return Number(process.hrtime.bigint() - started) / iterations;
}

/**
 * `rounds` rounds of `iterations` cached decisions each way, the order alternating from round to
 * round so neither side always runs warm; the difference is taken within each round.
 */
export function measureRecordCost(edge: EdgeRuntime, request: AuthorizationRequest, rounds: number, iterations: number): RecordCost {
  const cost: RecordCost = { withoutNs: [], withNs: [], addedNs: [] };
  const without = () => void edge.authorizer.decideNow(request);
  const withRecord = () => {
    const started = performance.now();
    const decision = edge.authorizer.decideNow(request);
    edge.recordDecision(request, decision, 'bench-request', performance.now() - started);
  };
  // Warm-up: both paths optimized before the first counted round.
  timeLoop(iterations, without);
  timeLoop(iterations, withRecord);
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    const a = first ? timeLoop(iterations, without) : 0;
    const b = timeLoop(iterations, withRecord);
    const c = first ? a : timeLoop(iterations, without);
    cost.withoutNs.push(c);
    cost.withNs.push(b);
    cost.addedNs.push(b - c);
  }
  return cost;
}

/** min / median / max of per-round values. */
export function spread(values: readonly number[]): { min: number; median: number; max: number } {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/**
 * Measures and prints the record's cost on `edge` (a table of the three per-round spreads and
 * what the shipper did meanwhile); returns the added ns per decision, median of rounds.
 */
export function reportRecordCost(edge: EdgeRuntime, request: AuthorizationRequest, rounds: number, iterations: number): number {
  const cost = measureRecordCost(edge, request, rounds, iterations);
  const [without, withRecord, added] = [spread(cost.withoutNs), spread(cost.withNs), spread(cost.addedNs)];
  console.log(`\nDecision records on the hot path: ${iterations} cached decisions each way, ${rounds} rounds (ns per decision; the shipper runs in both):`);
  printTable(
    ['decision', 'min ns', 'median ns', 'max ns'],
    [
      ['without a record (decideNow)', without.min, without.median, without.max],
      ['with its record queued (as authorizeNow() does)', withRecord.min, withRecord.median, withRecord.max],
      ['added by the record, per round', added.min, added.median, added.max],
    ],
  );
  console.log(`Shipped meanwhile: ${edge.decisionLog.dropped} dropped at the edge, ${edge.decisionLog.size} still queued.`);
  return added.median;
}
