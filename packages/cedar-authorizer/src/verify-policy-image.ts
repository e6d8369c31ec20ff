import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { POLICY_NAME_PATTERN, POLICY_NAME_RULE } from './policy-name';
import { PolicyImageError, PolicyImageTooLargeError } from './policy-errors';
import { MANIFEST_FILE, POLICY_EXTENSION, SCHEMA_FILE, createPolicyImage, type PolicyImage } from './policy-image';
import { isPolicyTestPath, parsePolicyTests } from './policy-tests';

/**
 * Limits on an image from outside the process. Cedar parses and validates roughly
 * 200 KB of policy text per second here, on the caller's thread: 128 KiB (some 700
 * policies) keeps a push, and an edge's swap, well under a second of work.
 */
export const POLICY_IMAGE_LIMITS = Object.freeze({
  maxFiles: 32,
  maxFileBytes: 64 * 1024,
  maxTotalBytes: 128 * 1024,
  maxPathLength: 200,
});

/** An image digest: `sha256:<64 lowercase hex>`. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
// Relative, forward slashes only, no empty, `.` or `..` segments (checked below).
const PATH_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

const imageShape = z.object({
  name: z.string().regex(POLICY_NAME_PATTERN, POLICY_NAME_RULE),
  digest: z.string().regex(DIGEST_PATTERN, 'digest must be sha256:<64 lowercase hex>'),
  files: z.record(z.string(), z.string()),
});

const manifestShape = z.object({
  name: z.string().regex(POLICY_NAME_PATTERN).optional(),
  description: z.string().max(2000).optional(),
});

/** The manifest's fields Outpost uses. */
export type PolicyManifest = z.infer<typeof manifestShape>;

/** Parses `manifest.json` text; throws {@link PolicyImageError} naming the problem. */
export function parseManifest(text: string): PolicyManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PolicyImageError(`${MANIFEST_FILE} is not valid JSON`);
  }
  const parsed = manifestShape.safeParse(json);
  if (!parsed.success) throw new PolicyImageError(`${MANIFEST_FILE}: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  return parsed.data;
}

/** True for the paths an image may hold: the manifest, the schema, `*.cedar` files and `tests/*.json`. */
export function isPolicyImagePath(path: string): boolean {
  return path === MANIFEST_FILE || path === SCHEMA_FILE || path.endsWith(POLICY_EXTENSION) || isPolicyTestPath(path);
}

function checkPath(path: string): void {
  const shown = JSON.stringify(path.slice(0, 80));
  if (path.length > POLICY_IMAGE_LIMITS.maxPathLength || !PATH_PATTERN.test(path) || path.split('/').includes('..')) {
    throw new PolicyImageError(`file path ${shown} is not a safe relative path`);
  }
  if (!isPolicyImagePath(path)) {
    throw new PolicyImageError(`file ${shown} is not allowed (only ${MANIFEST_FILE}, ${SCHEMA_FILE}, *${POLICY_EXTENSION}, tests/*.json)`);
  }
}

/**
 * Checks an image received from outside (registry push, edge download, disk cache):
 * shape, name, file count, paths (relative, no `..`), sizes (test files count too),
 * required files, manifest, test files (shape and case count), and finally that the
 * digest matches the content. Returns a frozen copy; throws
 * {@link PolicyImageError} with a clear message otherwise. Cedar checks come later,
 * in `compilePolicyImage`.
 */
export function verifyPolicyImage(input: unknown): PolicyImage {
  const parsed = imageShape.safeParse(input);
  if (!parsed.success) throw new PolicyImageError(`malformed policy image: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  const { name, digest, files } = parsed.data;
  const paths = Object.keys(files);
  if (paths.length > POLICY_IMAGE_LIMITS.maxFiles) {
    throw new PolicyImageTooLargeError(`policy image has ${paths.length} files (limit ${POLICY_IMAGE_LIMITS.maxFiles})`);
  }
  let total = 0;
  for (const path of paths) {
    checkPath(path);
    const bytes = Buffer.byteLength(files[path] as string, 'utf8');
    if (bytes > POLICY_IMAGE_LIMITS.maxFileBytes) {
      throw new PolicyImageTooLargeError(`file ${path} is ${bytes} bytes (limit ${POLICY_IMAGE_LIMITS.maxFileBytes})`);
    }
    total += bytes;
  }
  if (total > POLICY_IMAGE_LIMITS.maxTotalBytes) {
    throw new PolicyImageTooLargeError(`policy image is ${total} bytes (limit ${POLICY_IMAGE_LIMITS.maxTotalBytes})`);
  }
  if (!(SCHEMA_FILE in files)) throw new PolicyImageError(`policy image has no ${SCHEMA_FILE}`);
  if (!paths.some((p) => p.endsWith(POLICY_EXTENSION))) throw new PolicyImageError(`policy image has no *${POLICY_EXTENSION} file`);
  const manifestText = files[MANIFEST_FILE];
  if (manifestText === undefined) throw new PolicyImageError(`policy image has no ${MANIFEST_FILE}`);
  const manifest = parseManifest(manifestText);
  if (manifest.name !== undefined && manifest.name !== name) {
    throw new PolicyImageError(`image name "${name}" does not match ${MANIFEST_FILE} name "${manifest.name}"`);
  }
  // The frozen copy (its digest computed once): its tests are parsed on it, so running them
  // later before a swap reuses this parse (parsePolicyTests).
  const image = createPolicyImage(name, files);
  parsePolicyTests(image.files);
  // Digests are public, but comparing them in constant time costs nothing.
  if (!timingSafeEqual(Buffer.from(image.digest), Buffer.from(digest))) {
    throw new PolicyImageError(`policy image digest mismatch: declared ${digest}, content hashes to ${image.digest}`);
  }
  return image;
}
