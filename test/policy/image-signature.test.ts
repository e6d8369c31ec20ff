import { join } from 'node:path';
import { CompactSign, base64url, importJWK } from 'jose';
import {
  MAX_SIGNED_VERSION,
  PolicySignatureError,
  createPolicyImage,
  publicSigningKeySchema,
  readPolicyFolder,
  signPolicyImage,
  signingKeyId,
  verifyImageSignature,
  type PrivateSigningKey,
} from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';
import { newSigningKey } from '../helpers/signing';

const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
const changed = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` });

const signImage = (image: { name: string; digest: string }, key: PrivateSigningKey, version = 1) =>
  signPolicyImage({ name: image.name, digest: image.digest, version }, key);
/** A JWS by `key` with the image-signature header over any payload: what the signer's key could be made to sign. */
const signRaw = async (payload: string, key: PrivateSigningKey) =>
  new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'EdDSA', typ: 'outpost-policy-image+jws' }).sign(await importJWK(key, 'EdDSA'));

async function refused(signature: unknown, keys: Parameters<typeof verifyImageSignature>[2], image: { name: string; digest: string } = rbac): Promise<string> {
  const err = await verifyImageSignature(image, signature, keys).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PolicySignatureError);
  return (err as Error).message;
}

describe('image signatures', () => {
  it.each(['Ed25519', 'ES256'] as const)('%s: a JWS over the name, digest and version verifies with the public key, and names the key by its thumbprint', async (alg) => {
    const { privateJwk, publicJwk } = await newSigningKey(alg);
    const signature = await signImage(rbac, privateJwk, 7);
    await expect(verifyImageSignature(rbac, signature, [publicJwk])).resolves.toEqual({ name: 'rbac', digest: rbac.digest, version: 7 });
    const header = JSON.parse(Buffer.from(signature.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    expect(header).toEqual({ alg: alg === 'ES256' ? 'ES256' : 'EdDSA', kid: await signingKeyId(publicJwk), typ: 'outpost-policy-image+jws' });
    expect(Buffer.from(signature.split('.')[1]!, 'base64url').toString()).toBe(`{"name":"rbac","digest":"${rbac.digest}","version":7}`);
  });

  it('verifies against any of several trusted keys', async () => {
    const a = await newSigningKey();
    const b = await newSigningKey('ES256');
    await expect(verifyImageSignature(rbac, await signImage(rbac, b.privateJwk), [a.publicJwk, b.publicJwk])).resolves.toMatchObject({ version: 1 });
  });

  it('signs only a whole version from 1 to the largest safe integer', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    for (const version of [0, -1, 1.5, MAX_SIGNED_VERSION + 1, Number.NaN]) await expect(signImage(rbac, privateJwk, version)).rejects.toThrow();
    await expect(verifyImageSignature(rbac, await signImage(rbac, privateJwk, MAX_SIGNED_VERSION), [publicJwk])).resolves.toMatchObject({ version: MAX_SIGNED_VERSION });
  });

  it('refuses the same digest with an altered version: the signature no longer verifies', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const [header, , sig] = (await signImage(rbac, privateJwk, 1)).split('.');
    for (const version of [2, 1000]) {
      const forged = `${header}.${base64url.encode(JSON.stringify({ name: 'rbac', digest: rbac.digest, version }))}.${sig}`;
      expect(await refused(forged, [publicJwk])).toBe('the policy image signature does not verify with any trusted key');
    }
  });

  it('refuses a signature of the old format (the digest alone, no version), even by a trusted key: fail closed', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    expect(await refused(await signRaw(rbac.digest, privateJwk), [publicJwk])).toBe(
      'the signature is in the old format (over the digest alone, without a version), which is no longer accepted: ' +
        'sign the image again (npm run policy -- push <folder> --sign <private key file>)',
    );
  });

  it('refuses a trusted key\'s signature over anything but exactly {name, digest, version}', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const claims = { name: 'rbac', digest: rbac.digest, version: 1 };
    for (const payload of [
      'not json',
      JSON.stringify({ name: 'rbac', digest: rbac.digest }),
      JSON.stringify({ ...claims, version: 0 }),
      JSON.stringify({ ...claims, version: '2' }),
      JSON.stringify({ ...claims, extra: true }),
      JSON.stringify([claims]),
    ]) {
      expect(await refused(await signRaw(payload, privateJwk), [publicJwk])).toBe('the signature does not name a policy, digest and version');
    }
  });

  it('refuses a signature for another policy name, even over this digest', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const signature = await signPolicyImage({ name: 'todo', digest: rbac.digest, version: 1 }, privateJwk);
    expect(await refused(signature, [publicJwk])).toBe("the signature is for policy todo, not this image's rbac");
  });

  it('refuses a missing or malformed signature, whatever else the image says', async () => {
    const { publicJwk } = await newSigningKey();
    for (const missing of [undefined, null]) expect(await refused(missing, [publicJwk])).toBe('the policy image is not signed, and a signature is required');
    for (const junk of ['', 'abc', 'a.b', 42, { alg: 'none' }, 'a.b.c.d']) expect(await refused(junk, [publicJwk])).toBe('the policy image signature is not a compact JWS');
  });

  it('refuses a signature by a key that is not trusted', async () => {
    const trusted = await newSigningKey();
    const other = await newSigningKey();
    const signature = await signImage(rbac, other.privateJwk);
    expect(await refused(signature, [trusted.publicJwk])).toBe('the policy image signature does not verify with any trusted key');
  });

  it('refuses an image changed after signing, and a JWS over a different digest', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const signature = await signImage(rbac, privateJwk);
    // Files changed after signing: the image's digest is no longer the signed one.
    expect(await refused(signature, [publicJwk], changed)).toBe(`the signature is over another digest (${rbac.digest}), not this image's ${changed.digest}`);
    // The payload swapped for another digest, the signature kept: the JWS no longer verifies.
    const [header, , sig] = signature.split('.');
    const swapped = `${header}.${base64url.encode(JSON.stringify({ name: 'rbac', digest: changed.digest, version: 1 }))}.${sig}`;
    expect(await refused(swapped, [publicJwk], changed)).toBe('the policy image signature does not verify with any trusted key');
  });

  it('takes the algorithm from the key, never from the header: alg none, another alg or another typ are refused', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    const claims = base64url.encode(JSON.stringify({ name: 'rbac', digest: rbac.digest, version: 1 }));
    const unsecured = `${base64url.encode(JSON.stringify({ alg: 'none' }))}.${claims}.`;
    expect(await refused(unsecured, [publicJwk])).toBe('the policy image signature is not a compact JWS');
    const forgedAlg = `${base64url.encode(JSON.stringify({ alg: 'HS256' }))}.${claims}.${base64url.encode('x')}`;
    expect(await refused(forgedAlg, [publicJwk])).toBe('the policy image signature does not verify with any trusted key');
    // A JWS by the trusted key that is not an image signature (another typ) does not count as one.
    const otherUse = await new CompactSign(base64url.decode(claims)).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).sign(await importJWK(privateJwk, 'EdDSA'));
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
