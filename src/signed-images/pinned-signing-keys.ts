import { z } from 'zod';
import { readJsonFile } from '../files';
import { publicPart, signingKeySetSchema, type PublicSigningKey } from '../policy';

/**
 * Reads the edge's pinned image-signing keys (`EDGE_POLICY_SIGNING_KEYS`): a JSON file
 * `{"keys": [JWK, …]}` of 1 to 10 public Ed25519 or P-256 keys. Signing is configured by
 * naming the file, so a missing, empty or malformed file stops the edge with the path
 * rather than letting it run unverified.
 */
export function loadPinnedSigningKeys(file: string): PublicSigningKey[] {
  const raw = readJsonFile(file);
  if (raw === undefined) throw new Error(`${file}: does not exist (EDGE_POLICY_SIGNING_KEYS names it)`);
  const parsed = signingKeySetSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: not a set of public signing keys: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  }
  return parsed.data.keys.map(publicPart);
}
