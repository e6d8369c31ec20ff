import { join } from 'node:path';
import { applyDirectoryChange, type DirectoryData } from '../directory';
import type { Logger } from '../observability';
import { directoryReplicaSchema, type ControlPlaneClient } from './control-plane-client';
import type { EdgeState } from './edge-state';
import { readJsonFile, writeFileAtomic } from '../files';
import type { SyncOutcome } from './sync-policy';

const DIRECTORY_FILE = 'directory.json';

/** Loads the persisted replica; a damaged file is ignored (the next sync is a full one). */
export function loadPersistedDirectory(dataDir: string, logger: Logger): DirectoryData | undefined {
  try {
    const raw = readJsonFile(join(dataDir, DIRECTORY_FILE));
    return raw === undefined ? undefined : directoryReplicaSchema.parse(raw);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'ignoring the persisted directory');
    return undefined;
  }
}

/** Directory sync with its memory of the last full sync. */
export interface DirectorySync {
  /** One sync; `deadline` is a relay command's, which its downloads may spend on retries. */
  run(deadline?: number): Promise<SyncOutcome>;
}

/**
 * Incremental directory sync: replay the change log since the replica's revision, in
 * order, each change exactly one revision after the last. The first run, a `410
 * resync_required`, a gap in the revisions and every `fullSyncIntervalMs` fetch the full
 * snapshot instead — the periodic full sync repairs any drift the log could not express.
 */
export function createDirectorySync(deps: {
  client: ControlPlaneClient;
  state: EdgeState;
  dataDir: string;
  fullSyncIntervalMs: number;
  now: () => number;
  logger: Logger;
}): DirectorySync {
  const { client, state, dataDir, logger, now } = deps;
  let lastFullSync: number | undefined;

  function replace(next: DirectoryData, how: 'full' | 'incremental'): SyncOutcome {
    const previous = state.directory?.revision;
    writeFileAtomic(join(dataDir, DIRECTORY_FILE), JSON.stringify(next));
    state.directory = next;
    if (previous === next.revision) return 'unchanged';
    logger.info({ revision: next.revision, previous: previous ?? null, how }, 'directory synced');
    return 'updated';
  }

  async function fullSync(reason: string, deadline: number | undefined): Promise<SyncOutcome> {
    logger.debug({ reason }, 'full directory sync');
    const snapshot = await client.getDirectory(deadline);
    lastFullSync = now();
    return replace(snapshot, 'full');
  }

  return {
    async run(deadline) {
      const current = state.directory;
      if (current === undefined || lastFullSync === undefined) return fullSync('first sync', deadline);
      if (now() - lastFullSync >= deps.fullSyncIntervalMs) return fullSync('periodic', deadline);
      const answer = await client.getDirectoryChanges(current.revision, deadline);
      if (answer.status === 'resync_required') return fullSync('change log no longer reaches our revision', deadline);
      let next = current;
      for (const change of answer.changes) {
        if (change.rev <= next.revision) continue; // already applied (idempotent replay)
        if (change.rev !== next.revision + 1) return fullSync(`gap in change log at ${next.revision + 1}`, deadline);
        next = applyDirectoryChange(next, change);
      }
      if (answer.revision > next.revision) return fullSync(`change log ends at ${next.revision}, head is ${answer.revision}`, deadline);
      if (next === current) return 'unchanged';
      return replace(next, 'incremental');
    },
  };
}
