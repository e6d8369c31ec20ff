import { join } from 'node:path';
import { assertPolicyTestsPass, compilePolicyImage, verifyPolicyImage, type PolicyImage } from '@outpost/cedar-authorizer';
import type { Logger } from '../observability';
import type { ControlPlaneClient } from './control-plane-client';
import type { ActivePolicy, EdgeState } from './edge-state';
import { readJsonFile, writeFileAtomic } from '../files';
import type { ImageSignatureCheck } from './image-signature-check';
import type { PolicyVerdicts } from './policy-verdict';

/** What one discovery run did. */
export type SyncOutcome = 'updated' | 'unchanged';

const IMAGE_FILE = 'policy-image.json';

/** The `signature` member of a downloaded or persisted image, if it has a string one. */
function signatureOf(raw: unknown): string | undefined {
  const signature = typeof raw === 'object' && raw !== null ? (raw as { signature?: unknown }).signature : undefined;
  return typeof signature === 'string' ? signature : undefined;
}

/**
 * Verifies an image (shape, digest), then — when keys are pinned — its signature over that
 * image and that the version it signs is not older than the one activated before, all
 * before Cedar sees any of its text. Returns it with its signed version (none without
 * pinned keys). Throws the reason.
 */
async function verify(raw: unknown, pinned: ImageSignatureCheck | undefined): Promise<{ image: PolicyImage; version: number | undefined }> {
  const image = verifyPolicyImage(raw);
  const version = pinned === undefined ? undefined : await pinned.verify(image, signatureOf(raw));
  return { image, version };
}

/** A verified image with its compiled form (Cedar parse + schema validation); throws the reason. */
function compiled(image: PolicyImage): ActivePolicy {
  return { image, compiled: compilePolicyImage(image) };
}

/**
 * Loads the image persisted by an earlier run, so the edge serves with the control plane
 * down. A damaged or no longer valid file is ignored (and logged): the next discovery
 * replaces it. With pinned keys its signature and version are checked again (the file may
 * predate the keys, or have been edited). Its own tests are run again unless this edge's
 * verdict says the image with this digest passed them under this engine (`policy-verdict.ts`:
 * the file may have been edited, or persisted by a build that did not run them, or an
 * upgrade may decide differently): an image failing them is ignored and logged like a
 * damaged one.
 */
export async function loadPersistedPolicy(dataDir: string, logger: Logger, pinned: ImageSignatureCheck | undefined, verdicts?: PolicyVerdicts): Promise<ActivePolicy | undefined> {
  try {
    const raw = readJsonFile(join(dataDir, IMAGE_FILE));
    if (raw === undefined) return undefined;
    const persisted = compiled((await verify(raw, pinned)).image);
    if (verdicts?.passed(persisted.image.digest)) {
      logger.info({ policy: persisted.image.name, digest: persisted.image.digest }, 'persisted policy image compiled; its tests passed before under this engine');
      return persisted;
    }
    passOwnTests(persisted, verdicts);
    return persisted;
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'ignoring the persisted policy image');
    return undefined;
  }
}

/**
 * Runs the tests a freshly compiled image carries (through the real decision path) and
 * releases it if any fails; throws `PolicyTestsFailedError` naming the failing cases. A pass
 * is recorded in `verdicts`: a failure to write it costs only a rerun at the next start.
 */
function passOwnTests(next: ActivePolicy, verdicts: PolicyVerdicts | undefined): void {
  try {
    assertPolicyTestsPass(next.image, next.compiled);
  } catch (err) {
    next.compiled.release();
    throw err;
  }
  try {
    verdicts?.record(next.image.digest);
  } catch {
    // not recorded: the next start runs the tests again
  }
}

/**
 * One discovery run: a conditional download (`If-None-Match` with the active digest, so
 * an unchanged image costs a 304), then verify (and check the signature and its version
 * when keys are pinned), compile, run the image's own tests, persist (the version it
 * signed, then the image with its signature) and swap. Any
 * failure throws before the swap, so a bad image — or one failing its own tests, even if it
 * got into the registry past the push check — never replaces the last good one. The image
 * swapped out is released at once (decisions read and evaluate the active policy in one
 * synchronous step, so none is still using it), and Cedar's memory holds one image.
 */
export async function syncPolicy(deps: {
  client: ControlPlaneClient;
  state: EdgeState;
  dataDir: string;
  logger: Logger;
  pinned: ImageSignatureCheck | undefined;
  verdicts?: PolicyVerdicts;
  /** A relay command's deadline, which the download may spend on retries (`ControlPlaneClient`). */
  deadline?: number | undefined;
}): Promise<SyncOutcome> {
  const { client, state, dataDir, logger, pinned, verdicts } = deps;
  const download = await client.getPolicyImage(state.policy?.image.digest, deps.deadline);
  if (download.status === 'unchanged') return 'unchanged';
  const { image, version } = await verify(download.body, pinned);
  const signature = signatureOf(download.body);
  const current = state.policy;
  // The active image, verified again (signature and version too): nothing to compile or swap.
  if (image.digest === current?.image.digest) return 'unchanged';
  const next = compiled(image);
  passOwnTests(next, verdicts);
  try {
    // The version first: a crash in between leaves the image on disk older than the version
    // remembered, so it is not loaded at start (fail closed), never a version too low.
    if (pinned !== undefined && version !== undefined) pinned.activated(next.image, version);
    writeFileAtomic(join(dataDir, IMAGE_FILE), JSON.stringify(signature === undefined ? next.image : { ...next.image, signature }));
  } catch (err) {
    next.compiled.release();
    throw err;
  }
  state.policy = next;
  current?.compiled.release();
  logger.info(
    { policy: next.image.name, digest: next.image.digest, ...(version === undefined ? {} : { version }), previous: current?.image.digest ?? null },
    'policy image activated',
  );
  return 'updated';
}
