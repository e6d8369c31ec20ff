import type { ImageSignatureCheck } from '../edge';
import { verifyImageSignature, type PublicSigningKey } from '../policy';
import { loadPolicyVersionFloor } from './verify-policy-version';

export { loadPinnedSigningKeys } from './pinned-signing-keys';
// The control plane's side (its push check, the admin API's keys) is src/signing-keys: an edge
// that loads this folder loads none of the control plane.

/**
 * Signed images on an edge (docs/guide/05-policy-lifecycle.md, "Signed images"), plugged into
 * its runtime (EdgeRuntimeDeps.imageSignatures): an image is activated only when signed by one
 * of `keys`, and never when signed as an older version than one activated before, remembered
 * in `<dataDir>/policy-versions.json` — read here, once, so a damaged file stops the edge
 * before it serves anything.
 */
export function pinnedImageSignatures(keys: readonly PublicSigningKey[], dataDir: string): ImageSignatureCheck {
  const versions = loadPolicyVersionFloor(dataDir);
  return {
    async verify(image, signature) {
      const { version } = await verifyImageSignature(image, signature, keys);
      versions.check(image, version);
      return version;
    },
    activated: (image, version) => versions.record(image, version),
  };
}
