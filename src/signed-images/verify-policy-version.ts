import { join } from 'node:path';
import { z } from 'zod';
import { FileContentError, readJsonFile, writeFileAtomic } from '../files';
import { DIGEST_PATTERN, PolicyImageError, signedVersionSchema, type PolicyImage } from '../policy';

/** The file in the data directory that remembers, per policy name, the highest signed version activated. */
const POLICY_VERSIONS_FILE = 'policy-versions.json';

/**
 * An image signed as an older version than the one this edge already activated, or as the
 * same version with other content: a replayed or rolled-back image. A
 * {@link PolicyImageError}, so the edge keeps its last good image and reports `invalid_image`.
 */
class StalePolicyImageError extends PolicyImageError {}

const activatedSchema = z.strictObject({ version: signedVersionSchema, digest: z.string().regex(DIGEST_PATTERN) });
const fileSchema = z.record(z.string(), activatedSchema);
type Activated = z.infer<typeof activatedSchema>;

/**
 * The highest signed version this edge has activated per policy name, with that image's
 * digest: what a later image's signed version must not go below. Only an edge with pinned
 * keys keeps it, since only verified signatures carry a version it can trust.
 */
export interface PolicyVersionFloor {
  /**
   * Throws {@link StalePolicyImageError} when `image`, signed as `version`, is older than the
   * highest version activated for its name, or is that version with another digest.
   */
  check(image: PolicyImage, version: number): void;
  /** Remembers, on disk and then here, that `image`, signed as `version`, is active (it passed {@link check}). */
  record(image: PolicyImage, version: number): void;
}

/**
 * Reads `<dataDir>/policy-versions.json` (none yet: nothing activated). A damaged file stops
 * the edge with its path: forgetting the versions quietly would let a replayed old image in.
 */
export function loadPolicyVersionFloor(dataDir: string): PolicyVersionFloor {
  const file = join(dataDir, POLICY_VERSIONS_FILE);
  let activated: ReadonlyMap<string, Activated>;
  try {
    const parsed = fileSchema.safeParse(readJsonFile(file) ?? {});
    if (!parsed.success) throw new FileContentError(file, 'not a map of policy names to {"version", "digest"}');
    activated = new Map(Object.entries(parsed.data));
  } catch (err) {
    if (!(err instanceof FileContentError)) throw err;
    throw new Error(
      `${err.message}. The edge remembers there the highest signed policy version it activated. ` +
        'Restore the file, or delete it to forget those versions (the edge then takes any image signed by a pinned key).',
      { cause: err },
    );
  }

  return {
    check(image, version) {
      const highest = activated.get(image.name);
      if (highest === undefined) return;
      if (version < highest.version) {
        throw new StalePolicyImageError(
          `the image is signed as version ${version} of policy ${image.name}, older than version ${highest.version} this edge ` +
            'already activated (an old image served again); a rollback must be signed again as a new version',
        );
      }
      if (version === highest.version && image.digest !== highest.digest) {
        throw new StalePolicyImageError(
          `the image is signed as version ${version} of policy ${image.name}, which this edge activated with another digest (${highest.digest})`,
        );
      }
    },
    record(image, version) {
      const next = new Map(activated).set(image.name, { version, digest: image.digest });
      writeFileAtomic(file, JSON.stringify(Object.fromEntries(next)));
      activated = next;
    },
  };
}
