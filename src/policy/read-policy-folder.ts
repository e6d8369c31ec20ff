import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PolicyImageError } from './policy-errors';
import { MANIFEST_FILE, POLICY_EXTENSION, SCHEMA_FILE, createPolicyImage, type PolicyImage } from './policy-image';
import { parseManifest, verifyPolicyImage } from './verify-policy-image';

/**
 * Reads `policies/<name>/` into a policy image: `manifest.json`, `schema.cedarschema`
 * and the top-level `*.cedar` files; anything else in the folder (READMEs, editor
 * files) is not part of the image. The name is the manifest's `name`, or the folder's
 * name when the manifest has none. The result passes {@link verifyPolicyImage}.
 */
export function readPolicyFolder(dir: string): PolicyImage {
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && (e.name === MANIFEST_FILE || e.name === SCHEMA_FILE || e.name.endsWith(POLICY_EXTENSION)))
      .map((e) => e.name);
  } catch (err) {
    throw new PolicyImageError(`cannot read policy folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const files: Record<string, string> = {};
  for (const file of entries) files[file] = readFileSync(join(dir, file), 'utf8');
  const manifestText = files[MANIFEST_FILE];
  if (manifestText === undefined) throw new PolicyImageError(`policy folder ${dir} has no ${MANIFEST_FILE}`);
  const name = parseManifest(manifestText).name ?? basename(dir);
  const image = createPolicyImage(name, files);
  return verifyPolicyImage(image);
}
