import { prometheusLabel as label } from '../observability';
import type { EdgePlugin, SyncJob, SyncResult } from '../edge';

/** The edge's counters and gauges as a plug-in: its `metrics(state)` renders them. */
export interface EdgeMetrics extends Required<Pick<EdgePlugin, 'onAnswer' | 'onSync' | 'metrics'>> {}

/**
 * The edge's own `/metrics` lines (Prometheus text exposition format, version 0.0.4) as an
 * edge plug-in: answers by outcome, sync runs by job and result, the directory revision and
 * the active image. A few counters written by hand: the format is a handful of text lines and a
 * metrics library would be the edge's largest dependency. The sidecar plugs it in first, so
 * its lines come before every other plug-in's.
 */
export function edgeMetrics(): EdgeMetrics {
  const decisions = { allowed: 0, denied: 0 };
  const syncs = new Map<string, number>();
  for (const job of ['policy', 'directory'] as const) {
    for (const result of ['updated', 'unchanged', 'failed'] as const) syncs.set(`${job}|${result}`, 0);
  }

  return {
    onAnswer(allowed) {
      if (allowed) decisions.allowed += 1;
      else decisions.denied += 1;
    },
    onSync(job: SyncJob, result: SyncResult) {
      const key = `${job}|${result}`;
      syncs.set(key, (syncs.get(key) ?? 0) + 1);
    },
    metrics(state) {
      const lines = [
        '# HELP outpost_edge_decisions_total Authorization decisions answered, by outcome.',
        '# TYPE outpost_edge_decisions_total counter',
        `outpost_edge_decisions_total{decision="allowed"} ${decisions.allowed}`,
        `outpost_edge_decisions_total{decision="denied"} ${decisions.denied}`,
        '# HELP outpost_edge_syncs_total Policy discovery and directory sync runs, by job and result.',
        '# TYPE outpost_edge_syncs_total counter',
      ];
      for (const [key, count] of syncs) {
        const [job, result] = key.split('|') as [string, string];
        lines.push(`outpost_edge_syncs_total{job="${job}",result="${result}"} ${count}`);
      }
      lines.push(
        '# HELP outpost_edge_directory_revision Revision of the directory replica (0 before the first sync).',
        '# TYPE outpost_edge_directory_revision gauge',
        `outpost_edge_directory_revision ${state.directory?.revision ?? 0}`,
        '# HELP outpost_edge_policy_info The active policy image (value is always 1).',
        '# TYPE outpost_edge_policy_info gauge',
      );
      if (state.policy) {
        const { name, digest } = state.policy.image;
        lines.push(`outpost_edge_policy_info{policy="${label(name)}",digest="${label(digest)}"} 1`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
}
