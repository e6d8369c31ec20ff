import { join } from 'node:path';
import { readJsonFile, writeFileAtomic } from '../files';

/**
 * What became of one policy folder when it was compared with the tenant's latest image
 * (`syncPolicyFolder`, src/control-plane): `unchanged` (the latest image is the folder),
 * `pushed` (it differed, and now is the latest), `needs_signature` (it differs, or the latest
 * is unsigned while the edges pin keys: `command` is what to run instead), `invalid` (it
 * differs and does not compile or fails its tests: nothing pushed, `problems` as
 * `policies/<name>/<file>:<line>: …`), `refused` (the registry refused the push).
 */
export type PolicyFolderSync =
  | { readonly kind: 'unchanged'; readonly folder: string; readonly name: string }
  | { readonly kind: 'pushed'; readonly folder: string; readonly name: string; readonly digest: string; readonly previous: string | null }
  | {
      readonly kind: 'needs_signature';
      readonly folder: string;
      readonly name: string;
      /** `changed`: the folder differs from the latest; `unsigned_latest`: it is the latest, unsigned, and the edges pin keys. */
      readonly why: 'changed' | 'unsigned_latest';
      readonly pinnedBy: 'EDGE_POLICY_SIGNING_KEYS' | "the tenant's signing keys";
      readonly command: string;
    }
  | { readonly kind: 'invalid'; readonly folder: string; readonly name: string; readonly problems: readonly string[] }
  | { readonly kind: 'refused'; readonly folder: string; readonly name: string; readonly reason: string };

/** `sha256:0123456789ab`: enough of a digest to tell two apart in a line. */
const short = (digest: string) => digest.slice(0, 'sha256:'.length + 12);

/** One line (or a few, for problems) saying what became of a folder; undefined for an unchanged one (nothing to say). */
export function describePolicyFolderSync(sync: PolicyFolderSync): string | undefined {
  switch (sync.kind) {
    case 'unchanged':
      return undefined;
    case 'pushed':
      return sync.previous === null
        ? `pushed ${sync.folder}: the tenant had no image of policy ${sync.name} (now ${short(sync.digest)})`
        : `pushed ${sync.folder}: changed since the image the edges hold (${short(sync.previous)} → ${short(sync.digest)})`;
    case 'needs_signature':
      return sync.why === 'changed'
        ? `NOT pushed ${sync.folder}: changed since the image the edges hold, and ${sync.pinnedBy} pin signed images, so it is not pushed unsigned. Sign and push it: ${sync.command}`
        : `${sync.folder}: the image of policy ${sync.name} is unsigned and EDGE_POLICY_SIGNING_KEYS pins keys, so its edges refuse it (503). Sign and push it: ${sync.command}`;
    case 'invalid':
      return `NOT pushed ${sync.folder}: the edges keep the image they hold; fix:\n    ${sync.problems.join('\n    ')}`;
    case 'refused':
      return `NOT pushed ${sync.folder}: the control plane refused it: ${sync.reason}`;
  }
}

/** The file in the data directory where the control plane says, at each start, what it did with the policy folders; the banner reads it. */
export const POLICY_FOLDERS_FILE = 'policy-folders.json';

/** Replaces the report (every start writes it, so the banner never shows an earlier start's). */
export function writePolicyFoldersReport(dataDir: string, results: readonly PolicyFolderSync[]): void {
  writeFileAtomic(join(dataDir, POLICY_FOLDERS_FILE), `${JSON.stringify({ policy_folders: results }, null, 2)}\n`);
}

/** What the last start of the control plane did with the policy folders (empty when it wrote nothing or the file is unreadable). */
export function readPolicyFoldersReport(dataDir: string): PolicyFolderSync[] {
  try {
    const raw = readJsonFile(join(dataDir, POLICY_FOLDERS_FILE)) as { policy_folders?: unknown } | undefined;
    return Array.isArray(raw?.policy_folders) ? (raw.policy_folders as PolicyFolderSync[]) : [];
  } catch {
    return [];
  }
}
