import { join } from 'node:path';
import type { PolicyFolderSync } from '../config';
import { checkPolicyImage, PolicyTestsFailedError } from '../decision';
import { PolicyImageError, PolicyValidationError, readPolicyFolder, type PolicyImage } from '../policy';

/**
 * The registry a policy folder is compared with and pushed to, for one tenant: the store at
 * the control plane's start (`syncDemoPolicyFolders`), the admin API under `npm run dev`
 * (`src/stack/watch-policy-folders.ts`). Both go through {@link syncPolicyFolder}.
 */
export interface PolicyRegistry {
  /** The image `latest` of `name` points at (its digest, and whether it was pushed signed), or undefined when there is none. */
  latest(name: string): Promise<{ readonly digest: string; readonly signed: boolean } | undefined>;
  /** Whether the tenant has registered signing keys: the registry then refuses an unsigned push. */
  requiresSignature(): Promise<boolean>;
  /** Stores the image (checked already) and tags it `latest`; throws with the registry's reason when refused. */
  push(image: PolicyImage): Promise<void>;
}

/** Where a folder is, as the messages show it (`policies/notes`), and where signing keys are pinned. */
export interface SyncPolicyFolderOptions {
  /** The folder on disk. */
  readonly dir: string;
  /** The folder as a reader types it from the project root (`policies/notes`). */
  readonly shown: string;
  /** `EDGE_POLICY_SIGNING_KEYS` is set: the edges activate only signed images, so nothing is pushed unsigned. */
  readonly edgesPinKeys: boolean;
  /** The private key a signed push would use, as typed (`.data/policy-signing.key.json`); a placeholder when none is known. */
  readonly signingKeyFile?: string;
}

/** The placeholder of a signing command when no key file is known. */
const KEY_PLACEHOLDER = '<private key file>';

/** The problems of a folder that does not compile or fails its tests, each under the folder (`policies/notes/notes.cedar:3: …`). */
function problemsOf(err: unknown, shown: string): string[] | undefined {
  if (err instanceof PolicyValidationError) return err.problems.map((p) => `${shown}/${p}`);
  if (err instanceof PolicyTestsFailedError) return err.failures.map((f) => `${shown}/${f}`);
  if (err instanceof PolicyImageError) return [`${shown}: ${err.message}`];
  return undefined;
}

/**
 * Makes the tenant's latest image of a policy the folder's, when it may: reads the folder as
 * an image and compares its digest with `latest` (the same digest the registry computes, so
 * an unchanged folder costs one read and pushes nothing); a changed one is compiled and its
 * tests run first, then pushed unsigned — unless keys are pinned (the edges', or the
 * tenant's), when it says which signed push to run instead. Never throws for the folder's
 * own faults: they come back as `invalid`, so one broken folder leaves the others alone.
 */
export async function syncPolicyFolder(registry: PolicyRegistry, options: SyncPolicyFolderOptions): Promise<PolicyFolderSync> {
  const { shown } = options;
  let image: PolicyImage;
  try {
    image = readPolicyFolder(options.dir);
  } catch (err) {
    const problems = problemsOf(err, shown);
    if (problems === undefined) throw err;
    return { kind: 'invalid', folder: shown, name: shown.split('/').pop()!, problems };
  }
  const { name } = image;
  const command = `npm run policy -- push ${shown} --sign ${options.signingKeyFile ?? KEY_PLACEHOLDER}`;
  const latest = await registry.latest(name);
  if (latest?.digest === image.digest) {
    // The edges pin keys and the image they would take is unsigned: they refuse it (503 until one is signed).
    if (options.edgesPinKeys && !latest.signed) return { kind: 'needs_signature', folder: shown, name, why: 'unsigned_latest', pinnedBy: 'EDGE_POLICY_SIGNING_KEYS', command };
    return { kind: 'unchanged', folder: shown, name };
  }
  try {
    checkPolicyImage(image);
  } catch (err) {
    const problems = problemsOf(err, shown);
    if (problems === undefined) throw err;
    return { kind: 'invalid', folder: shown, name, problems };
  }
  if (options.edgesPinKeys) return { kind: 'needs_signature', folder: shown, name, why: 'changed', pinnedBy: 'EDGE_POLICY_SIGNING_KEYS', command };
  if (await registry.requiresSignature()) return { kind: 'needs_signature', folder: shown, name, why: 'changed', pinnedBy: "the tenant's signing keys", command };
  try {
    await registry.push(image);
  } catch (err) {
    return { kind: 'refused', folder: shown, name, reason: (err as Error).message };
  }
  return { kind: 'pushed', folder: shown, name, digest: image.digest, previous: latest?.digest ?? null };
}

/** The folder of policy `name` under `policiesDir`, shown from the project root (`policies/<name>`). */
export function policyFolder(policiesDir: string, name: string): { dir: string; shown: string } {
  return { dir: join(policiesDir, name), shown: `policies/${name}` };
}
