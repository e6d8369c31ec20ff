import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PolicyImageError } from './policy-errors';
import { MANIFEST_FILE, POLICY_EXTENSION, SCHEMA_FILE, createPolicyImage, type PolicyImage } from './policy-image';
import { isPolicyTestPath } from './policy-tests';
import { parseManifest, verifyPolicyImage } from './verify-policy-image';

/** The names of the files directly in `dir` that `keep` accepts (by their image path). */
function listFiles(dir: string, prefix: string, keep: (path: string) => boolean): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && keep(`${prefix}${e.name}`))
      .map((e) => `${prefix}${e.name}`);
  } catch (err) {
    throw new PolicyImageError(`cannot read policy folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * Reads `policies/<name>/` into a policy image: `manifest.json`, `schema.cedarschema`,
 * the top-level `*.cedar` files and the test cases in `tests/*.json`; anything else in the
 * folder (READMEs, editor files) is not part of the image. The name is the manifest's
 * `name`, or the folder's name when the manifest has none. The result passes
 * {@link verifyPolicyImage}.
 */
export function readPolicyFolder(dir: string): PolicyImage {
  const paths = listFiles(dir, '', (p) => p === MANIFEST_FILE || p === SCHEMA_FILE || p.endsWith(POLICY_EXTENSION));
  if (existsSync(join(dir, 'tests'))) paths.push(...listFiles(join(dir, 'tests'), 'tests/', isPolicyTestPath));
  const files: Record<string, string> = {};
  for (const path of paths) files[path] = readFileSync(join(dir, path), 'utf8');
  const manifestText = files[MANIFEST_FILE];
  if (manifestText === undefined) throw new PolicyImageError(`policy folder ${dir} has no ${MANIFEST_FILE}`);
  const name = parseManifest(manifestText).name ?? basename(dir);
  const image = createPolicyImage(name, files);
  return verifyPolicyImage(image);
}
