import { CompactSign, calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import { z } from 'zod';
import { isWeakEd25519Key } from './ed25519-point';
import { PolicySignatureError, decodeClaims, encodeClaims, type SignedImageClaims } from './signed-image-claims';

/**
 * Bounds on signing keys. Verifying tries each trusted key in turn (a few hundred
 * microseconds each), so the count bounds the work an image's signature can cause.
 */
export const SIGNING_KEY_LIMITS = Object.freeze({
  /** Public keys one tenant may register, and one edge may pin. */
  maxKeys: 10,
  /** Length of a signature (a compact JWS over one image's name, digest and version is about 300 characters). */
  maxSignatureLength: 2048,
});

/** The JWS `typ` of an image signature, so no other JWS made with the same key passes for one. */
export const IMAGE_SIGNATURE_TYPE = 'outpost-policy-image+jws';

/** A compact JWS: three base64url parts. */
export const signatureSchema = z
  .string()
  .max(SIGNING_KEY_LIMITS.maxSignatureLength)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'signature must be a compact JWS');

const coordinate = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a 32-byte base64url coordinate');
const kid = z.string().min(1).max(128).optional();

// Public keys only, and strictly: a JWK with `d` (a private key) is refused, not trimmed.
const ed25519Fields = { kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: coordinate, kid };
// A small-order or off-curve `x` would let anyone make signatures that verify: never trusted.
const strongPoint = (key: { x: string }) => !isWeakEd25519Key(Buffer.from(key.x, 'base64url'));
const WEAK_KEY = { message: 'a weak Ed25519 key: x is not a point of the curve, or a point of small order', path: ['x'] };
const ed25519Key = z.strictObject(ed25519Fields).refine(strongPoint, WEAK_KEY);
const p256Key = z.strictObject({ kty: z.literal('EC'), crv: z.literal('P-256'), x: coordinate, y: coordinate, kid });

/** An Ed25519 (`EdDSA`) or P-256 (`ES256`) public key as a JWK. */
export const publicSigningKeySchema = z.union([ed25519Key, p256Key]);
export type PublicSigningKey = z.infer<typeof publicSigningKeySchema>;

/** The admin API's `POST /api/v2/admin/signing-keys` body: one public key. A private key (`d`) is refused, never stored. */
export const addSigningKeyBodySchema = z.strictObject({ jwk: publicSigningKeySchema });

/** One registered key as the admin API lists it. */
export const signingKeyShape = z.strictObject({ kid: z.string(), jwk: publicSigningKeySchema, created_at: z.string() });

/** The private half, as `npm run policy -- keygen` writes it. */
export const privateSigningKeySchema = z.union([
  z.strictObject({ ...ed25519Fields, d: coordinate }).refine(strongPoint, WEAK_KEY),
  p256Key.extend({ d: coordinate }),
]);
export type PrivateSigningKey = z.infer<typeof privateSigningKeySchema>;

/** A set of trusted public keys, `{"keys": [...]}` (the JWK Set shape), 1 to maxKeys. */
export const signingKeySetSchema = z.strictObject({
  keys: z.array(publicSigningKeySchema).min(1).max(SIGNING_KEY_LIMITS.maxKeys),
});

/** The one algorithm a key may sign with: fixed by the key type, never by a JWS header. */
function algorithmOf(key: PublicSigningKey): 'EdDSA' | 'ES256' {
  return key.kty === 'OKP' ? 'EdDSA' : 'ES256';
}

/** The public half of a key (no `d`, no `kid`): what is registered, pinned and thumbprinted. */
export function publicPart(key: PublicSigningKey | PrivateSigningKey): PublicSigningKey {
  return key.kty === 'OKP' ? { kty: key.kty, crv: key.crv, x: key.x } : { kty: key.kty, crv: key.crv, x: key.x, y: key.y };
}

/** The key's id: its RFC 7638 SHA-256 thumbprint, so equal keys have equal ids. */
export async function signingKeyId(key: PublicSigningKey | PrivateSigningKey): Promise<string> {
  return calculateJwkThumbprint(publicPart(key), 'sha256');
}

/**
 * Signs an image as `version` of its policy: a compact JWS whose payload binds the policy
 * name, the image digest (which covers the name and every file) and the version (see
 * {@link SignedImageClaims}), with `alg` fixed by the key, `kid` its thumbprint and `typ`
 * {@link IMAGE_SIGNATURE_TYPE}.
 */
export async function signPolicyImage(claims: SignedImageClaims, privateKey: PrivateSigningKey): Promise<string> {
  const alg = algorithmOf(privateKey);
  const key = await importJWK({ ...privateKey }, alg);
  return new CompactSign(encodeClaims(claims))
    .setProtectedHeader({ alg, kid: await signingKeyId(privateKey), typ: IMAGE_SIGNATURE_TYPE })
    .sign(key);
}

/**
 * Checks that `signature` is a JWS by one of `keys` over exactly this image (its name and
 * digest) and returns what it signed, the version included. Each key is tried with the one
 * algorithm its type allows, so nothing in the signature (its `alg`, its `kid`) decides
 * whether or how it is checked; a missing signature is refused like a wrong one, and so is
 * a signature of the old format, which bound no version. Throws
 * {@link PolicySignatureError} with the reason.
 */
export async function verifyImageSignature(
  image: { readonly name: string; readonly digest: string },
  signature: unknown,
  keys: readonly PublicSigningKey[],
): Promise<SignedImageClaims> {
  if (signature === undefined || signature === null) throw new PolicySignatureError('the policy image is not signed, and a signature is required');
  if (!signatureSchema.safeParse(signature).success) throw new PolicySignatureError('the policy image signature is not a compact JWS');
  for (const key of keys) {
    const alg = algorithmOf(key);
    let payload: Uint8Array;
    try {
      const verified = await compactVerify(signature as string, await importJWK({ ...key }, alg), { algorithms: [alg] });
      if (verified.protectedHeader.typ !== IMAGE_SIGNATURE_TYPE) continue;
      payload = verified.payload;
    } catch {
      continue;
    }
    const signed = decodeClaims(payload);
    if (signed.digest !== image.digest) {
      throw new PolicySignatureError(`the signature is over another digest (${signed.digest}), not this image's ${image.digest}`);
    }
    if (signed.name !== image.name) throw new PolicySignatureError(`the signature is for policy ${signed.name}, not this image's ${image.name}`);
    return signed;
  }
  throw new PolicySignatureError('the policy image signature does not verify with any trusted key');
}
