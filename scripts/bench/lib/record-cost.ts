// The hot-path cost of decision records (docs/reference/api.md, "Decision records"): what an
// embedded edge's authorizeNow() adds to a decision to queue its record — two clock reads and a
// slot write — measured against the same decisions without it, in the same process, round by
// round. The edge's shipper runs meanwhile in both (it is a timer, never on the decision's path).
import type { AuthorizationRequest } from '../../../src/decision';
import type { EdgeRuntime } from '../../../src/edge';
import { createDecisionLog, type DecisionLog } from '../../../src/decision-records/decision-log';
import { createDecisionShipper } from '../../../src/decision-records/ship-decisions';
import { spreadOf } from './compare-rounds';
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

/**
 * Measures and prints the record's cost on `edge` (a table of the three per-round spreads and
 * what the shipper did meanwhile); returns the added ns per decision, median of rounds.
 */
export function reportRecordCost(edge: EdgeRuntime, log: DecisionLog, request: AuthorizationRequest, rounds: number, iterations: number): number {
  const cost = measureRecordCost(edge, request, rounds, iterations);
  const [without, withRecord, added] = [spreadOf(cost.withoutNs), spreadOf(cost.withNs), spreadOf(cost.addedNs)];
  console.log(`\nDecision records on the hot path: ${iterations} cached decisions each way, ${rounds} rounds (ns per decision; the shipper runs in both):`);
  printTable(
    ['decision', 'min ns', 'median ns', 'max ns'],
    [
      ['without a record (decideNow)', without.min, without.median, without.max],
      ['with its record queued (as authorizeNow() does)', withRecord.min, withRecord.median, withRecord.max],
      ['added by the record, per round', added.min, added.median, added.max],
    ],
  );
  console.log(`Shipped meanwhile: ${log.dropped} dropped at the edge, ${log.size} still queued.`);
  return added.median;
}

/**
 * What shipping costs the edge per record, off the decision's path but on its thread: `records`
 * decisions (each of a new resource) queued in a log of their own, then taken and sent as the
 * shipper sends them (the wire form, the bounds check, frames of up to 100, the frame's JSON as
 * the relay client writes it) until the log is empty; CPU ns per record, per round.
 */
export function measureShipCost(edge: EdgeRuntime, request: AuthorizationRequest, rounds: number, records: number): number[] {
  const policy = edge.state.policy;
  const directory = edge.state.directory;
  if (!policy || !directory) throw new Error('the edge has no policy or directory to record decisions with');
  const decided = Array.from({ length: records }, (_, i) => {
    const asked = { ...request, resource: { ...request.resource, id: `${request.resource.id}-${i}` } };
    return { asked, decision: edge.authorizer.decideNow(asked) };
  });
  let bytes = 0;
  const perRound: number[] = [];
  for (let round = -1; round < rounds; round++) {
    const log = createDecisionLog('bench', records);
    decided.forEach(({ asked, decision }, i) => log.record(asked, decision, `bench-${round}-${i}`, 0.05, policy, directory));
    const shipper = createDecisionShipper(log, () => ({ connected: true, send: (message) => void (bytes += JSON.stringify(message).length) }));
    const started = process.cpuUsage();
    while (log.size > 0) shipper.flush();
    const used = process.cpuUsage(started);
    if (shipper.shipped !== records) throw new Error(`shipped ${shipper.shipped} of ${records} records`);
    if (round >= 0) perRound.push(((used.user + used.system) * 1000) / records); // round -1 warms up
  }
  if (bytes === 0) throw new Error('nothing was sent');
  return perRound;
}

/** Measures and prints {@link measureShipCost}; returns the ns per shipped record, median of rounds. */
export function reportShipCost(edge: EdgeRuntime, request: AuthorizationRequest, rounds: number, records: number): number {
  const { min, median: mid, max } = spreadOf(measureShipCost(edge, request, rounds, records));
  console.log(`\nShipping a record (taken from the log, checked, framed and serialized as the edge sends it): ${records} records, ${rounds} rounds (CPU ns per record):`);
  printTable(['per record', 'min ns', 'median ns', 'max ns'], [['shipped', Math.round(min), Math.round(mid), Math.round(max)]]);
  return mid;
}
