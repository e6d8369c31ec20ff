import { join } from 'node:path';
import { CompactSign, base64url, importJWK } from 'jose';
import {
  PolicySignatureError,
  createPolicyImage,
  publicSigningKeySchema,
  readPolicyFolder,
  signImageDigest,
  signingKeyId,
  verifyImageSignature,
} from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';
import { newSigningKey } from '../helpers/signing';

const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
const changed = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` });

async function refused(signature: unknown, keys: Parameters<typeof verifyImageSignature>[2], digest = rbac.digest): Promise<string> {
  const err = await verifyImageSignature(digest, signature, keys).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PolicySignatureError);
  return (err as Error).message;
}

describe('image signatures', () => {
  it.each(['Ed25519', 'ES256'] as const)('%s: a JWS over the digest verifies with the public key, and names the key by its thumbprint', async (alg) => {
    const { privateJwk, publicJwk } = await newSigningKey(alg);
    const signature = await signImageDigest(rbac.digest, privateJwk);
    await expect(verifyImageSignature(rbac.digest, signature, [publicJwk])).resolves.toBeUndefined();
    const header = JSON.parse(Buffer.from(signature.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    expect(header).toEqual({ alg: alg === 'ES256' ? 'ES256' : 'EdDSA', kid: await signingKeyId(publicJwk), typ: 'outpost-policy-image+jws' });
    expect(Buffer.from(signature.split('.')[1]!, 'base64url').toString()).toBe(rbac.digest);
  });

  it('verifies against any of several trusted keys', async () => {
    const a = await newSigningKey();
    const b = await newSigningKey('ES256');
    await expect(verifyImageSignature(rbac.digest, await signImageDigest(rbac.digest, b.privateJwk), [a.publicJwk, b.publicJwk])).resolves.toBeUndefined();
  });

  it('refuses a missing or malformed signature, whatever else the image says', async () => {
    const { publicJwk } = await newSigningKey();
    for (const missing of [undefined, null]) expect(await refused(missing, [publicJwk])).toBe('the policy image is not signed, and a signature is required');
    for (const junk of ['', 'abc', 'a.b', 42, { alg: 'none' }, 'a.b.c.d']) expect(await refused(junk, [publicJwk])).toBe('the policy image signature is not a compact JWS');
  });

  it('refuses a signature by a key that is not trusted', async () => {
    const trusted = await newSigningKey();
    const other = await newSigningKey();
    const signature = await signImageDigest(rbac.digest, other.privateJwk);
    expect(await refused(signature, [trusted.publicJwk])).toBe('the policy image signature does not verify with any trusted key');
  });

  it('refuses an image changed after signing, and a JWS over a different digest', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const signature = await signImageDigest(rbac.digest, privateJwk);
    // Files changed after signing: the image's digest is no longer the signed one.
    expect(await refused(signature, [publicJwk], changed.digest)).toBe(`the signature is over another digest (${rbac.digest}), not this image's ${changed.digest}`);
    // The payload swapped for another digest, the signature kept: the JWS no longer verifies.
    const [header, , sig] = signature.split('.');
    const swapped = `${header}.${base64url.encode(changed.digest)}.${sig}`;
    expect(await refused(swapped, [publicJwk], changed.digest)).toBe('the policy image signature does not verify with any trusted key');
  });

  it('takes the algorithm from the key, never from the header: alg none, another alg or another typ are refused', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const unsecured = `${base64url.encode(JSON.stringify({ alg: 'none' }))}.${base64url.encode(rbac.digest)}.`;
    expect(await refused(unsecured, [publicJwk])).toBe('the policy image signature is not a compact JWS');
    const forgedAlg = `${base64url.encode(JSON.stringify({ alg: 'HS256' }))}.${base64url.encode(rbac.digest)}.${base64url.encode('x')}`;
    expect(await refused(forgedAlg, [publicJwk])).toBe('the policy image signature does not verify with any trusted key');
    // A JWS by the trusted key that is not an image signature (another typ) does not count as one.
    const otherUse = await new CompactSign(new TextEncoder().encode(rbac.digest)).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).sign(await importJWK(privateJwk, 'EdDSA'));
    expect(await refused(otherUse, [publicJwk])).toBe('the policy image signature does not verify with any trusted key');
  });

  it('accepts only public Ed25519 and P-256 keys', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    expect(publicSigningKeySchema.safeParse(publicJwk).success).toBe(true);
    expect(publicSigningKeySchema.safeParse(privateJwk).success).toBe(false);
    expect(publicSigningKeySchema.safeParse({ kty: 'RSA', n: 'x', e: 'AQAB' }).success).toBe(false);
    expect(publicSigningKeySchema.safeParse({ kty: 'EC', crv: 'P-384', x: publicJwk.x, y: publicJwk.x }).success).toBe(false);
  });
});
