import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from './persist-json';

const instanceFileSchema = z.object({ instance_id: z.string().min(1).max(64) });

/**
 * The edge's instance id: a random UUID generated on first start and kept in
 * `<dataDir>/instance.json`, so an edge keeps its id across restarts (and relay
 * reconnects) and `find-instance` keeps pointing at it. A new data directory is a new
 * instance.
 */
export function loadOrCreateInstanceId(dataDir: string): string {
  const file = join(dataDir, 'instance.json');
  const existing = readJsonFile(file);
  if (existing !== undefined) return instanceFileSchema.parse(existing).instance_id;
  const instanceId = randomUUID();
  writeJsonAtomic(file, { instance_id: instanceId, created_at: new Date().toISOString() });
  return instanceId;
}
