import { join } from 'node:path';
import { assertPolicyTestsPass } from '../decision';
import { compilePolicyImage, verifyPolicyImage } from '../policy';
import type { Logger } from '../observability';
import type { ControlPlaneClient } from './control-plane-client';
import type { ActivePolicy, EdgeState } from './edge-state';
import { readJsonFile, writeFileAtomic } from '../files';

/** What one discovery run did. */
export type SyncOutcome = 'updated' | 'unchanged';

const IMAGE_FILE = 'policy-image.json';

/** Verifies (shape, digest) and compiles (Cedar parse + schema validation) an image; throws the reason. */
function activate(raw: unknown): ActivePolicy {
  const image = verifyPolicyImage(raw);
  return { image, compiled: compilePolicyImage(image) };
}

/**
 * Loads the image persisted by an earlier run, so the edge serves with the control plane
 * down. A damaged or no longer valid file is ignored (and logged): the next discovery
 * replaces it. Its tests are not run again: only an image that passed them is persisted.
 */
export function loadPersistedPolicy(dataDir: string, logger: Logger): ActivePolicy | undefined {
  try {
    const raw = readJsonFile(join(dataDir, IMAGE_FILE));
    return raw === undefined ? undefined : activate(raw);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'ignoring the persisted policy image');
    return undefined;
  }
}

/**
 * Runs the tests a freshly compiled image carries (through the real decision path) and
 * releases it if any fails; throws `PolicyTestsFailedError` naming the failing cases.
 */
async function testBeforeSwap(next: ActivePolicy): Promise<void> {
  try {
    await assertPolicyTestsPass(next.image, next.compiled);
  } catch (err) {
    next.compiled.release();
    throw err;
  }
}

/**
 * One discovery run: a conditional download (`If-None-Match` with the active digest, so
 * an unchanged image costs a 304), then verify, compile, run the image's own tests,
 * persist and swap. Any failure throws before the swap, so a bad image — or one failing
 * its own tests, even if it got into the registry past the push check — never replaces
 * the last good one. The image
 * swapped out is released at once (decisions read and evaluate the active policy in one
 * synchronous step, so none is still using it), and Cedar's memory holds one image.
 */
export async function syncPolicy(deps: {
  client: ControlPlaneClient;
  state: EdgeState;
  dataDir: string;
  logger: Logger;
}): Promise<SyncOutcome> {
  const { client, state, dataDir, logger } = deps;
  const download = await client.getPolicyImage(state.policy?.image.digest);
  if (download.status === 'unchanged') return 'unchanged';
  const next = activate(download.body);
  const current = state.policy;
  if (next.image.digest === current?.image.digest) {
    next.compiled.release();
    return 'unchanged';
  }
  await testBeforeSwap(next);
  try {
    writeFileAtomic(join(dataDir, IMAGE_FILE), JSON.stringify(next.image));
  } catch (err) {
    next.compiled.release();
    throw err;
  }
  state.policy = next;
  current?.compiled.release();
  logger.info({ policy: next.image.name, digest: next.image.digest, previous: current?.image.digest ?? null }, 'policy image activated');
  return 'updated';
}
