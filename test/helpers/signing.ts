import { exportJWK, generateKeyPair } from 'jose';
import { privateSigningKeySchema, publicPart, type PrivateSigningKey, type PublicSigningKey } from '../../src/policy';

/** A fresh image-signing key pair as JWKs (Ed25519 unless ES256 is asked for). */
export async function newSigningKey(alg: 'Ed25519' | 'ES256' = 'Ed25519'): Promise<{ privateJwk: PrivateSigningKey; publicJwk: PublicSigningKey }> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const privateJwk = privateSigningKeySchema.parse(await exportJWK(privateKey));
  return { privateJwk, publicJwk: publicPart(privateJwk) };
}
