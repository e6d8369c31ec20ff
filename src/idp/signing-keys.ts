import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { z } from 'zod';

/** The one algorithm the IdP signs with; pinned, never taken from input. */
export const SIGNING_ALG = 'RS256';

/** A public key as published in the JWKS (RFC 7517 §4, RFC 7518 §6.3.1). */
export interface PublicJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
  readonly kid: string;
  readonly alg: typeof SIGNING_ALG;
  readonly use: 'sig';
}

/** One key of keys.json. Times are seconds since the epoch, like JWT claims. */
export const storedKeySchema = z.object({
  kid: z.string().min(1),
  created_at: z.number().int(),
  /** Set when a newer key took over; the public half stays published for the overlap. */
  retired_at: z.number().int().optional(),
  private_jwk: z.object({ kty: z.literal('RSA'), n: z.string(), e: z.string(), d: z.string() }).loose(),
});
export type StoredKey = z.infer<typeof storedKeySchema>;

export const keyFileSchema = z
  .object({ version: z.literal(1), keys: z.array(storedKeySchema).min(1) })
  .refine((f) => f.keys.filter((k) => k.retired_at === undefined).length === 1, 'exactly one key must be active');
export type KeyFile = z.infer<typeof keyFileSchema>;

/** A fresh RSA-2048 key pair, exported as a private JWK with its RFC 7638 thumbprint as `kid`. */
export async function generateStoredKey(nowSeconds: number): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e }, 'sha256');
  return {
    kid,
    created_at: nowSeconds,
    private_jwk: { ...jwk, kty: 'RSA', n: jwk.n as string, e: jwk.e as string, d: jwk.d as string },
  };
}

/** The public half only: the private members (d, p, q, dp, dq, qi) never leave the store. */
export function toPublicJwk(key: StoredKey): PublicJwk {
  return { kty: 'RSA', n: key.private_jwk.n, e: key.private_jwk.e, kid: key.kid, alg: SIGNING_ALG, use: 'sig' };
}

/** Imports a stored private key once into a CryptoKey for signing. */
export async function importPrivateKey(key: StoredKey): Promise<CryptoKey> {
  const imported = await importJWK(key.private_jwk as JWK, SIGNING_ALG);
  if (imported instanceof Uint8Array) throw new Error(`key ${key.kid} is not an asymmetric key`);
  return imported;
}

/** True while a key may still be published: active, or retired less than `overlap` seconds ago. */
export function isPublished(key: StoredKey, nowSeconds: number, overlapSeconds: number): boolean {
  return key.retired_at === undefined || nowSeconds < key.retired_at + overlapSeconds;
}
