import type { PolicyImage } from '../policy';
import type { ControlPlaneRepositories } from './control-plane-store';

/** One image about to be stored for a tenant, with the signature pushed beside it (undefined: pushed unsigned). */
export interface ImagePush {
  readonly tenantId: string;
  readonly image: PolicyImage;
  readonly signature: string | undefined;
}

/**
 * What the control plane asks of every policy image before it stores one, on each path that
 * does: the admin API's push, the policy-folder sync at start (`syncDemoPolicyFolders`) and the
 * images of apps added to the demo tenant later (`ensureDemoAppConnections`). Signed images
 * (`src/signing-keys`, `signedImagePushCheck`) plug it in: a tenant with registered signing
 * keys takes signed pushes only (docs/guide/05-policy-lifecycle.md, "Signed images").
 *
 * It is a required dependency of each of those paths, never optional: a control plane built
 * without one throws at once ({@link requirePushCheck}) rather than store unsigned images for
 * a tenant that has keys. `within` is what to read through: the store, or a transaction's
 * repositories when the image is stored inside one.
 */
export interface ImagePushCheck {
  /** Whether `tenantId` takes signed pushes only: the folder sync then names the signed push to run instead of pushing. */
  requiresSignature(tenantId: string, within: ControlPlaneRepositories): Promise<boolean>;
  /**
   * Checks `push` before Cedar sees any of the image's text, and again (through the
   * transaction's repositories) where the image is stored, so a key registered in between
   * still refuses it. Resolves with the version a
   * verified signature signs (undefined: none was verified; a signature is then stored
   * unchecked, for edges to verify); throws the refusal (an `HttpError`): nothing is stored.
   */
  check(push: ImagePush, within: ControlPlaneRepositories): Promise<number | undefined>;
}

/**
 * `check` itself, or a TypeError naming `who` when there is none: a caller that left the
 * check out (JavaScript, a cast) fails where it is built, never with a push let through.
 */
export function requirePushCheck(check: ImagePushCheck | undefined, who: string): ImagePushCheck {
  if (typeof check?.check !== 'function' || typeof check.requiresSignature !== 'function') {
    throw new TypeError(`${who} needs a pushCheck (an ImagePushCheck, such as signedImagePushCheck() of src/signing-keys): without one it would store unsigned images for tenants with signing keys`);
  }
  return check;
}
