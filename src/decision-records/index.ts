import type { EdgePlugin } from '../edge';
import { createDecisionLog, DECISION_QUEUE_CAPACITY, type DecisionLog } from './decision-log';
import { decisionLogMetrics } from './decision-log-metrics';
import { createDecisionShipper } from './ship-decisions';

/** The decision-records plug-in of one edge: the plug-in and the log it fills. */
interface DecisionRecords extends EdgePlugin {
  /** Records waiting to be shipped to the control plane. */
  readonly log: DecisionLog;
}

/**
 * Decision records (docs/reference/api.md, "Decision records") as an edge plug-in: every
 * decision the edge records is queued in the same tick, with the state it was made from
 * (`app`: who decided through the edge, `sidecar` or an app's name), and shipped to the relay
 * on a timer; `/metrics` gains the queue's two figures. An edge without it keeps no records.
 */
export function decisionRecords(options: { app: string; capacity?: number }): DecisionRecords {
  const log = createDecisionLog(options.app, options.capacity ?? DECISION_QUEUE_CAPACITY);
  let shipper: ReturnType<typeof createDecisionShipper> | undefined;
  return {
    log,
    onDecision(request, decision, requestId, latencyMs, state) {
      log.record(request, decision, requestId, latencyMs, state.policy, state.directory);
    },
    metrics: () => decisionLogMetrics(log),
    start(relay) {
      shipper = createDecisionShipper(log, relay);
      shipper.start();
    },
    stop() {
      // What is queued goes out now, if the relay is there to take it; the rest is dropped with the edge.
      shipper?.stop();
      shipper?.flush();
    },
  };
}
