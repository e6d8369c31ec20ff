import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEdge, type Edge, type EdgeDeps } from '../../src/sidecar';
import { silentLogger } from '../../src/observability';
import { CREDENTIALS } from './fake-control-plane';
import { manualTimers, type ManualTimers } from './manual-timers';

export const HOUR = 3_600_000;

/** A fresh data directory; remove it with {@link removeDir}. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'outpost-edge-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * An edge pointed at `relayUrl` with manual timers (nothing periodic runs unless the test
 * fires it) and long intervals; `overrides` replace any dependency.
 */
export function makeEdge(relayUrl: string, dataDir: string, overrides: Partial<EdgeDeps> = {}): { edge: Edge; clock: ManualTimers } {
  const clock = manualTimers();
  const edge = createEdge({
    relayUrl,
    ...CREDENTIALS,
    dataDir,
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR + 1,
    fullSyncIntervalMs: 24 * HOUR,
    jwt: { issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json', audience: 'urn:outpost:test-api' },
    logger: silentLogger(),
    version: '9.9.9',
    hostname: 'edge-test-host',
    timers: clock.timers,
    random: () => 0.5,
    ...overrides,
  });
  return { edge, clock };
}

/** {@link makeEdge}, then both syncs run once: an edge holding the control plane's image and directory, ready to decide. */
export async function makeSyncedEdge(relayUrl: string, dataDir: string, overrides: Partial<EdgeDeps> = {}): Promise<{ edge: Edge; clock: ManualTimers }> {
  const made = makeEdge(relayUrl, dataDir, overrides);
  await made.edge.runCommand('discovery');
  await made.edge.runCommand('sync_edge_directory');
  return made;
}
