import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { FileContentError, readJsonFile, writeFileAtomic } from '../files';

const instanceFileSchema = z.object({ instance_id: z.string().min(1).max(64) });

/** The id kept in the file; `undefined` on first start; a {@link FileContentError} naming the file when damaged. */
function readInstanceId(file: string): string | undefined {
  const raw = readJsonFile(file);
  if (raw === undefined) return undefined;
  const parsed = instanceFileSchema.safeParse(raw);
  if (!parsed.success) throw new FileContentError(file, 'no valid "instance_id" (a string of 1 to 64 characters)');
  return parsed.data.instance_id;
}

/**
 * The edge's instance id: a random UUID generated on first start and kept in
 * `<dataDir>/instance.json` (0600, fsynced), so an edge keeps its id across restarts (and
 * relay reconnects) and `find-instance` keeps pointing at it. A new data directory is a
 * new instance. A damaged file stops the edge with an error naming it and the way out:
 * quietly taking a new id would strand everything that addresses this edge by the old one.
 */
export function loadOrCreateInstanceId(dataDir: string): string {
  const file = join(dataDir, 'instance.json');
  let existing: string | undefined;
  try {
    existing = readInstanceId(file);
  } catch (err) {
    if (!(err instanceof FileContentError)) throw err;
    throw new Error(
      `${err.message}. The edge keeps its instance id there. Restore the file ({"instance_id":"<id>"}), ` +
        'or delete it to start as a new instance with a new id (commands and find-instance lookups ' +
        'by the old id will no longer reach this edge).',
      { cause: err },
    );
  }
  if (existing !== undefined) return existing;
  const instanceId = randomUUID();
  writeFileAtomic(file, JSON.stringify({ instance_id: instanceId, created_at: new Date().toISOString() }));
  return instanceId;
}
