import { join } from 'node:path';
import { assertPolicyTestsPass } from '../decision';
import { compilePolicyImage, verifyImageSignature, verifyPolicyImage, type PublicSigningKey } from '../policy';
import type { Logger } from '../observability';
import type { ControlPlaneClient } from './control-plane-client';
import type { ActivePolicy, EdgeState } from './edge-state';
import { readJsonFile, writeFileAtomic } from '../files';

/** What one discovery run did. */
export type SyncOutcome = 'updated' | 'unchanged';

const IMAGE_FILE = 'policy-image.json';

/**
 * The keys images must be signed with (`EDGE_POLICY_SIGNING_KEYS`), or undefined when this
 * edge does not verify signatures. Only this configuration decides: nothing an image
 * carries can turn verification off.
 */
export type PinnedKeys = readonly PublicSigningKey[] | undefined;

/** The `signature` member of a downloaded or persisted image, if it has a string one. */
function signatureOf(raw: unknown): string | undefined {
  const signature = typeof raw === 'object' && raw !== null ? (raw as { signature?: unknown }).signature : undefined;
  return typeof signature === 'string' ? signature : undefined;
}

/**
 * Verifies an image (shape, digest), then — when keys are pinned — its signature over that
 * digest, before Cedar sees any of its text; then compiles it (Cedar parse + schema
 * validation). Throws the reason.
 */
async function activate(raw: unknown, keys: PinnedKeys): Promise<ActivePolicy> {
  const image = verifyPolicyImage(raw);
  if (keys !== undefined) await verifyImageSignature(image.digest, signatureOf(raw), keys);
  return { image, compiled: compilePolicyImage(image) };
}

/**
 * Loads the image persisted by an earlier run, so the edge serves with the control plane
 * down. A damaged or no longer valid file is ignored (and logged): the next discovery
 * replaces it. With pinned keys its signature is checked again (the file may predate the
 * keys, or have been edited), and its own tests are run again (the file may have been
 * edited, or persisted by a build that did not run them): an image failing them is
 * ignored and logged like a damaged one.
 */
export async function loadPersistedPolicy(dataDir: string, logger: Logger, keys: PinnedKeys): Promise<ActivePolicy | undefined> {
  try {
    const raw = readJsonFile(join(dataDir, IMAGE_FILE));
    if (raw === undefined) return undefined;
    const persisted = await activate(raw, keys);
    passOwnTests(persisted);
    return persisted;
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'ignoring the persisted policy image');
    return undefined;
  }
}

/**
 * Runs the tests a freshly compiled image carries (through the real decision path) and
 * releases it if any fails; throws `PolicyTestsFailedError` naming the failing cases.
 */
function passOwnTests(next: ActivePolicy): void {
  try {
    assertPolicyTestsPass(next.image, next.compiled);
  } catch (err) {
    next.compiled.release();
    throw err;
  }
}

/**
 * One discovery run: a conditional download (`If-None-Match` with the active digest, so
 * an unchanged image costs a 304), then verify (and check the signature when keys are
 * pinned), compile, run the image's own tests, persist (with its signature) and swap. Any
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
  keys: PinnedKeys;
}): Promise<SyncOutcome> {
  const { client, state, dataDir, logger } = deps;
  const download = await client.getPolicyImage(state.policy?.image.digest);
  if (download.status === 'unchanged') return 'unchanged';
  const next = await activate(download.body, deps.keys);
  const signature = signatureOf(download.body);
  const current = state.policy;
  if (next.image.digest === current?.image.digest) {
    next.compiled.release();
    return 'unchanged';
  }
  passOwnTests(next);
  try {
    writeFileAtomic(join(dataDir, IMAGE_FILE), JSON.stringify(signature === undefined ? next.image : { ...next.image, signature }));
  } catch (err) {
    next.compiled.release();
    throw err;
  }
  state.policy = next;
  current?.compiled.release();
  logger.info({ policy: next.image.name, digest: next.image.digest, previous: current?.image.digest ?? null }, 'policy image activated');
  return 'updated';
}
