import type { DecisionLog } from './decision-log';

/**
 * The decision log's lines for the edge's `/metrics`: records waiting to be shipped and records
 * dropped (the queue was full while the control plane was slow or away, or a record did not
 * fit the wire). Prometheus text format, like the rest (docs/reference/api.md, "Decision records").
 */
export function decisionLogMetrics(log: DecisionLog): string {
  return `${[
    '# HELP outpost_edge_decision_records_queued Decision records waiting to be shipped to the control plane.',
    '# TYPE outpost_edge_decision_records_queued gauge',
    `outpost_edge_decision_records_queued ${log.size}`,
    '# HELP outpost_edge_decision_records_dropped_total Decision records dropped before shipping (queue full, or unfit for the wire).',
    '# TYPE outpost_edge_decision_records_dropped_total counter',
    `outpost_edge_decision_records_dropped_total ${log.dropped}`,
  ].join('\n')}\n`;
}
