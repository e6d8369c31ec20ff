import { createHash } from 'node:crypto';

/** The manifest, the Cedar schema and the policies: the files a policy image may hold. */
export const MANIFEST_FILE = 'manifest.json';
export const SCHEMA_FILE = 'schema.cedarschema';
export const POLICY_EXTENSION = '.cedar';

/**
 * One policy folder as an immutable, content-addressed bundle. `files` maps a relative
 * path (`manifest.json`, `schema.cedarschema`, `rbac.cedar`, …) to its UTF-8 text;
 * `digest` is `sha256:<64 hex>` over {@link canonicalImageBytes}, so equal content
 * always has the same digest and any changed byte changes it.
 */
export interface PolicyImage {
  readonly name: string;
  readonly digest: string;
  readonly files: Readonly<Record<string, string>>;
}

const FORMAT_TAG = 'outpost.policy-image.v1';

/** A netstring (`<byte length>:<bytes>,`): length-prefixed, so no value can forge a boundary. */
function netstring(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length}:`, 'ascii'), bytes, Buffer.from(',', 'ascii')]);
}

/** File paths in UTF-8 byte order, which every language sorts the same way. */
export function sortedPaths(files: Readonly<Record<string, string>>): string[] {
  return Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/**
 * The canonical encoding the digest covers:
 * `ns(FORMAT_TAG) ns(name) ns(file count) { ns(path) ns(text) }` with files sorted by
 * the UTF-8 bytes of their path, where `ns` is a netstring. Documented here so other
 * implementations (a CLI, another language) can compute the same digest.
 */
export function canonicalImageBytes(name: string, files: Readonly<Record<string, string>>): Buffer {
  const paths = sortedPaths(files);
  const parts = [netstring(FORMAT_TAG), netstring(name), netstring(String(paths.length))];
  for (const path of paths) parts.push(netstring(path), netstring(files[path] as string));
  return Buffer.concat(parts);
}

/** `sha256:<hex>` of the canonical encoding of `{name, files}`. */
export function computeImageDigest(name: string, files: Readonly<Record<string, string>>): string {
  return `sha256:${createHash('sha256').update(canonicalImageBytes(name, files)).digest('hex')}`;
}

/**
 * Builds a frozen image from a name and its files (no size or path checks: use
 * {@link verifyPolicyImage} for anything that came from outside the process).
 */
export function createPolicyImage(name: string, files: Readonly<Record<string, string>>): PolicyImage {
  const copy: Record<string, string> = {};
  for (const path of sortedPaths(files)) copy[path] = files[path] as string;
  return Object.freeze({ name, digest: computeImageDigest(name, copy), files: Object.freeze(copy) });
}
