import { z } from 'zod';
import { DIGEST_PATTERN, POLICY_NAME_PATTERN, PolicyImageError } from '@outpost/cedar-authorizer';

/**
 * What an image signature binds: the image (its policy name and digest) and its version, a
 * number per tenant and policy name that each signed push must raise. Binding the version
 * is what lets the control plane and edges refuse an older image replayed with its old
 * signature (a rollback attack, as TUF names it), while a deliberate rollback stays
 * possible: the old image signed again as a new, higher version.
 */
export interface SignedImageClaims {
  readonly name: string;
  readonly digest: string;
  readonly version: number;
}

/** The highest version a signature may carry: the largest integer JSON and both SQL engines hold exactly. */
export const MAX_SIGNED_VERSION = Number.MAX_SAFE_INTEGER;

/** A signed version: a whole number from 1 to {@link MAX_SIGNED_VERSION}. */
export const signedVersionSchema = z.number().int().min(1).max(MAX_SIGNED_VERSION);

const claimsSchema = z.strictObject({
  name: z.string().regex(POLICY_NAME_PATTERN),
  digest: z.string().regex(DIGEST_PATTERN),
  version: signedVersionSchema,
});

/**
 * An image's signature is missing, malformed, made with an untrusted key, made in the old
 * format, or over another image. A {@link PolicyImageError}: an edge refuses the image
 * (`invalid_image`).
 */
export class PolicySignatureError extends PolicyImageError {}

/** The JWS payload for `claims`: their JSON, in a fixed member order. */
export function encodeClaims(claims: SignedImageClaims): Uint8Array {
  const { name, digest, version } = claimsSchema.parse(claims);
  return new TextEncoder().encode(JSON.stringify({ name, digest, version }));
}

/**
 * Reads the payload of a signature that verified with a trusted key. A payload that is a
 * digest alone is a signature of the first format, which bound no version: refused (fail
 * closed), since replaying it could roll an image back.
 */
export function decodeClaims(payload: Uint8Array): SignedImageClaims {
  const text = new TextDecoder().decode(payload);
  if (DIGEST_PATTERN.test(text)) {
    throw new PolicySignatureError(
      'the signature is in the old format (over the digest alone, without a version), which is no longer accepted: ' +
        'sign the image again (npm run policy -- push <folder> --sign <private key file>)',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const claims = claimsSchema.safeParse(parsed);
  if (!claims.success) throw new PolicySignatureError('the signature does not name a policy, digest and version');
  return claims.data;
}
