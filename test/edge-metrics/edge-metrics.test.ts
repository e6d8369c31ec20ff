import { createEdgeRuntime } from '../../src/edge';
import type { EdgePlugin } from '../../src/edge';
import { edgeMetrics } from '../../src/edge-metrics';
import { silentLogger } from '../../src/observability';
import { CREDENTIALS } from '../edge/fake-control-plane';
import { HOUR, removeDir, tempDir } from '../edge/edge-kit';
import { manualTimers } from '../edge/manual-timers';

/** A runtime that starts nothing: the relay URL is never dialled. */
function runtime(dataDir: string, plugins?: readonly EdgePlugin[]) {
  return createEdgeRuntime({
    relayUrl: 'http://127.0.0.1:9',
    ...CREDENTIALS,
    dataDir,
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: HOUR,
    logger: silentLogger(),
    timers: manualTimers().timers,
    ...(plugins ? { plugins } : {}),
  });
}

describe('edge metrics, a plug-in of the edge runtime', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  it('counts answers and sync runs, and renders them with the state it is given', () => {
    const metrics = edgeMetrics();
    metrics.onAnswer(true);
    metrics.onAnswer(false);
    metrics.onAnswer(false);
    metrics.onSync('directory', 'failed');
    const text = metrics.metrics({ policy: undefined, directory: undefined });
    expect(text).toContain('outpost_edge_decisions_total{decision="allowed"} 1\n');
    expect(text).toContain('outpost_edge_decisions_total{decision="denied"} 2\n');
    expect(text).toContain('outpost_edge_syncs_total{job="directory",result="failed"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="policy",result="failed"} 0\n');
    expect(text).toContain('outpost_edge_directory_revision 0\n');
    expect(text).not.toContain('outpost_edge_policy_info{');
  });

  it('a runtime without plug-ins keeps no counters: its metrics are empty, and answers and syncs go nowhere', async () => {
    const bare = runtime(dir);
    bare.answered(true);
    await expect(bare.runCommand('discovery', 1000)).resolves.toMatchObject({ ok: false });
    expect(bare.metrics()).toBe('');
  });

  it("the runtime hands answers and sync ends to each plug-in and joins their lines in the plug-ins' order", async () => {
    const metrics = edgeMetrics();
    const after: EdgePlugin = { metrics: () => 'outpost_after 1\n' };
    const edge = runtime(dir, [metrics, after]);
    edge.answered(false);
    await expect(edge.runCommand('discovery', 1000)).resolves.toMatchObject({ ok: false });
    const text = edge.metrics();
    expect(text).toContain('outpost_edge_decisions_total{decision="denied"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="policy",result="failed"} 1\n');
    expect(text.endsWith('\noutpost_after 1\n')).toBe(true);
    expect(text.startsWith('# HELP outpost_edge_decisions_total')).toBe(true);
  });
});
