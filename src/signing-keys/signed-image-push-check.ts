import type { ControlPlaneRepositories, ImagePushCheck } from '../control-plane';
import { httpError } from '../http';
import { PolicySignatureError, verifyImageSignature } from '../policy';
import { createSigningKeyRepository } from './signing-key-repository';

/** The tenant's registered public keys, read through `within` (the store, or the transaction storing the image). */
async function registeredKeys(tenantId: string, within: ControlPlaneRepositories) {
  return (await createSigningKeyRepository(within.sql).list(tenantId)).map((k) => k.jwk);
}

/**
 * Signed images on the control plane (docs/guide/05-policy-lifecycle.md, "Signed images"),
 * plugged into its push check (`ImagePushCheck`, src/control-plane/image-push-check.ts). A
 * tenant without keys takes any push (a signature it carries is stored unchecked, for edges
 * to verify). Once it has a key, an image must carry a signature by one of them over its name,
 * digest and version: 400 `signature_required` without one, 400 `invalid_signature` for a
 * wrong key, another image or a signature of the old format (no version); the signed version
 * is returned, and the registry refuses one not above the highest accepted (409 `stale_signature`).
 */
export function signedImagePushCheck(): ImagePushCheck {
  return {
    requiresSignature: async (tenantId, within) => (await registeredKeys(tenantId, within)).length > 0,
    async check({ tenantId, image, signature }, within) {
      const keys = await registeredKeys(tenantId, within);
      if (keys.length === 0) return undefined;
      if (signature === undefined) {
        throw httpError('signature_required', 'this tenant has registered signing keys: push the image signed (npm run policy -- push --sign <private key file>)');
      }
      try {
        return (await verifyImageSignature(image, signature, keys)).version;
      } catch (err) {
        if (err instanceof PolicySignatureError) throw httpError('invalid_signature', err.message);
        throw err;
      }
    },
  };
}
