import { prometheusLabel as label } from '../observability';
import type { EdgeState } from './edge-state';

/** Which job a sync belonged to, and how it ended. */
export type SyncJob = 'policy' | 'directory';
export type SyncResult = 'updated' | 'unchanged' | 'failed';

/** The edge's counters, rendered in the Prometheus text exposition format (version 0.0.4). */
export interface EdgeMetrics {
  decision(allowed: boolean): void;
  sync(job: SyncJob, result: SyncResult): void;
  render(): string;
}

/**
 * A few counters and gauges, written by hand: the format is a handful of text lines
 * and a metrics library would be the edge's largest dependency. `more` adds the plug-ins' lines.
 */
export function createEdgeMetrics(state: EdgeState, more: () => string = () => ''): EdgeMetrics {
  const decisions = { allowed: 0, denied: 0 };
  const syncs = new Map<string, number>();
  for (const job of ['policy', 'directory'] as const) {
    for (const result of ['updated', 'unchanged', 'failed'] as const) syncs.set(`${job}|${result}`, 0);
  }

  return {
    decision(allowed) {
      if (allowed) decisions.allowed += 1;
      else decisions.denied += 1;
    },
    sync(job, result) {
      const key = `${job}|${result}`;
      syncs.set(key, (syncs.get(key) ?? 0) + 1);
    },
    render() {
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
      return `${lines.join('\n')}\n${more()}`;
    },
  };
}
