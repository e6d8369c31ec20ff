// Bench child: several real edge runtimes (createEdge: relay client, persisted state, Cedar),
// each with its own data directory and instance id, on one connection. Their timers are set
// out of the way, so only the bench's commands sync them. Runtimes in one process share its
// Cedar engine, and so its compiled image (the pre-parsed registry is keyed by digest): each
// edge still downloads the image, checks its digest and signature and swaps it in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEdge, type Edge } from '../../../src/sidecar';
import { createLogger } from '../../../src/observability';
import { serveParent } from './child-endpoint';

export interface RealEdgesArgs {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  readonly count: number;
  /** Hostnames are `<prefix><index>`. */
  readonly prefix: string;
}

const HOUR = 3_600_000;
const START_ATTEMPTS = 3;
const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-real-edges-'));
const edges: Edge[] = [];

async function start(args: RealEdgesArgs): Promise<{ instanceIds: string[] }> {
  for (let i = 0; i < args.count; i += 1) {
    const edge = createEdge({
      relayUrl: args.relayUrl,
      connectionId: args.connectionId,
      connectionSecret: args.connectionSecret,
      dataDir: join(dataDir, String(i)),
      discoveryIntervalMs: HOUR,
      directorySyncIntervalMs: HOUR,
      fullSyncIntervalMs: 24 * HOUR,
      jwt: { issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json', audience: 'urn:outpost:sample-api' },
      // Logs at the deployed level, written to /dev/null by the harness: their cost is real.
      logger: createLogger('edge', 'info'),
      hostname: `${args.prefix}${i}`,
      version: 'bench',
    });
    edges.push(edge);
    await edge.start();
  }
  // The first image and directory, before anything is measured; a start-up on a loaded
  // machine (the first Cedar compile) may time a first request out, so each is tried 3 times.
  for (const edge of edges) {
    for (const command of ['discovery', 'sync_edge_directory'] as const) {
      let outcome = await edge.runCommand(command);
      for (let attempt = 1; !outcome.ok && attempt < START_ATTEMPTS; attempt += 1) outcome = await edge.runCommand(command);
      if (!outcome.ok) throw new Error(`a real edge could not run ${command}: ${JSON.stringify(outcome)}`);
    }
  }
  return { instanceIds: edges.map((e) => e.instanceId) };
}

serveParent({ start }, async () => {
  for (const edge of edges) await edge.close();
  rmSync(dataDir, { recursive: true, force: true });
});
