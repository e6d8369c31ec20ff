/**
 * An edge with pinned signing keys (`EDGE_POLICY_SIGNING_KEYS`) verifies every image itself,
 * whatever the control plane or the image says: unsigned, wrongly signed and re-signed
 * images never become active, nor an image signed as an older version than one it activated
 * (a replay), also after a restart. Against the fake control plane, which serves any JSON.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Edge } from '../../src/sidecar';
import { loadPinnedSigningKeys } from '../../src/signed-images';
import { CompactSign, importJWK } from 'jose';
import { createPolicyImage, signPolicyImage, type PolicyImage, type PrivateSigningKey, type PublicSigningKey } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let signer: { privateJwk: PrivateSigningKey; publicJwk: PublicSigningKey };
const image = rbacImage();
const changed = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': `${image.files['rbac.cedar']}\n// changed\n` });

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  signer = await newSigningKey();
  ({ edge } = makeEdge(cp.url, dir, { policySigningKeys: [signer.publicJwk] }));
});

afterEach(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const refusal = (reason: string) => ({ ok: false, error: { code: 'invalid_image', message: `policy image refused, last good image kept: ${reason}` } });
const signed = async (img: PolicyImage = image, key = signer.privateJwk, version = 1) => ({
  ...img,
  signature: await signPolicyImage({ name: img.name, digest: img.digest, version }, key),
});
const versionsFile = () => join(dir, 'policy-versions.json');
const restart = async (relayUrl = cp.url) => {
  await edge.close();
  ({ edge } = makeEdge(relayUrl, dir, { policySigningKeys: [signer.publicJwk] }));
};
const stale = (version: number, highest: number) =>
  refusal(
    `the image is signed as version ${version} of policy rbac, older than version ${highest} this edge already activated ` +
      '(an old image served again); a rollback must be signed again as a new version',
  );

describe('an edge with pinned signing keys', () => {
  it('activates a correctly signed image and persists it with its signature, and the version it activated', async () => {
    cp.image = await signed();
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: image.digest } });
    expect(JSON.parse(readFileSync(join(dir, 'policy-image.json'), 'utf8'))).toEqual(cp.image);
    expect(JSON.parse(readFileSync(versionsFile(), 'utf8'))).toEqual({ rbac: { version: 1, digest: image.digest } });
  });

  it('refuses an older image served with its old signature, keeps its image, and still refuses it after a restart', async () => {
    const old = await signed(changed, signer.privateJwk, 1);
    cp.image = old;
    await edge.runCommand('discovery');
    cp.image = await signed(image, signer.privateJwk, 2);
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: image.digest } });
    // A control plane serving the older image again, as it was signed.
    cp.image = old;
    await expect(edge.runCommand('discovery')).resolves.toEqual(stale(1, 2));
    expect(edge.status().policy_digest).toBe(image.digest);
    await restart();
    await edge.start();
    expect(edge.status().policy_digest).toBe(image.digest);
    await expect(edge.runCommand('discovery')).resolves.toEqual(stale(1, 2));
    expect(edge.status().policy_digest).toBe(image.digest);
    expect(JSON.parse(readFileSync(versionsFile(), 'utf8'))).toEqual({ rbac: { version: 2, digest: image.digest } });
  });

  it('refuses another image signed as the version it activated; takes that same image again (its file lost)', async () => {
    const current = await signed(image, signer.privateJwk, 2);
    cp.image = current;
    await edge.runCommand('discovery');
    cp.image = await signed(changed, signer.privateJwk, 2);
    await expect(edge.runCommand('discovery')).resolves.toEqual(
      refusal(`the image is signed as version 2 of policy rbac, which this edge activated with another digest (${image.digest})`),
    );
    expect(edge.status().policy_digest).toBe(image.digest);
    // The image file gone, the versions kept: the same image as the same version is no rollback.
    rmSync(join(dir, 'policy-image.json'));
    await restart();
    cp.image = current;
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: image.digest } });
  });

  it('refuses its own image with the version in the signed payload raised: the signature no longer verifies', async () => {
    const { signature } = await signed(changed, signer.privateJwk, 1);
    const [header, , sig] = signature.split('.');
    const payload = Buffer.from(JSON.stringify({ name: 'rbac', digest: changed.digest, version: 99 })).toString('base64url');
    cp.image = { ...changed, signature: `${header}.${payload}.${sig}` };
    await expect(edge.runCommand('discovery')).resolves.toEqual(refusal('the policy image signature does not verify with any trusted key'));
    expect(edge.status().policy_digest).toBeNull();
    expect(existsSync(versionsFile())).toBe(false);
  });

  it('remembers the version before it writes the image: when that fails, neither the image file nor the active image change', async () => {
    const first = await signed(changed, signer.privateJwk, 1);
    cp.image = first;
    await edge.runCommand('discovery');
    // The versions file cannot be replaced (a directory stands in its way).
    rmSync(versionsFile());
    mkdirSync(join(versionsFile(), 'blocker'), { recursive: true });
    cp.image = await signed(image, signer.privateJwk, 2);
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: false, error: { code: 'sync_failed' } });
    expect(edge.status().policy_digest).toBe(changed.digest);
    expect(JSON.parse(readFileSync(join(dir, 'policy-image.json'), 'utf8'))).toEqual(first);
  });

  it('takes a deliberate rollback: the older image signed again as a higher version', async () => {
    cp.image = await signed(changed, signer.privateJwk, 1);
    await edge.runCommand('discovery');
    cp.image = await signed(image, signer.privateJwk, 2);
    await edge.runCommand('discovery');
    cp.image = await signed(changed, signer.privateJwk, 3);
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: changed.digest } });
    expect(JSON.parse(readFileSync(versionsFile(), 'utf8'))).toEqual({ rbac: { version: 3, digest: changed.digest } });
  });

  it('does not load a persisted image older than the version it remembers (the file replaced by an old signed one)', async () => {
    const old = await signed(changed, signer.privateJwk, 1);
    cp.image = old;
    await edge.runCommand('discovery');
    cp.image = await signed(image, signer.privateJwk, 2);
    await edge.runCommand('discovery');
    writeFileSync(join(dir, 'policy-image.json'), JSON.stringify(old));
    await restart('http://127.0.0.1:9');
    await edge.start();
    expect(edge.status().policy_digest).toBeNull();
  });

  it('stops at a damaged versions file, naming it, rather than forget what it activated', async () => {
    await edge.close();
    for (const content of ['{', '[]', JSON.stringify({ rbac: { version: 0, digest: image.digest } }), JSON.stringify({ rbac: { version: 1 } })]) {
      writeFileSync(versionsFile(), content);
      expect(() => makeEdge(cp.url, dir, { policySigningKeys: [signer.publicJwk] })).toThrow(`${versionsFile()}: `);
    }
    rmSync(versionsFile());
    ({ edge } = makeEdge(cp.url, dir, { policySigningKeys: [signer.publicJwk] }));
  });

  it('refuses a signature of the old format (the digest alone, no version), even by a pinned key', async () => {
    const legacy = await new CompactSign(new TextEncoder().encode(image.digest))
      .setProtectedHeader({ alg: 'EdDSA', typ: 'outpost-policy-image+jws' })
      .sign(await importJWK(signer.privateJwk, 'EdDSA'));
    cp.image = { ...image, signature: legacy };
    await expect(edge.runCommand('discovery')).resolves.toEqual(
      refusal(
        'the signature is in the old format (over the digest alone, without a version), which is no longer accepted: ' +
          'sign the image again (npm run policy -- push <folder> --sign <private key file>)',
      ),
    );
    expect(edge.status().policy_digest).toBeNull();
  });

  it('refuses an unsigned image, whatever its own fields say', async () => {
    for (const body of [image, { ...image, signature: null }, { ...image, signed: false, verify: false }]) {
      cp.image = body;
      await expect(edge.runCommand('discovery')).resolves.toEqual(refusal('the policy image is not signed, and a signature is required'));
    }
    expect(edge.status().policy_digest).toBeNull();
  });

  it('refuses an image signed by a key it does not pin, and keeps its last good image', async () => {
    cp.image = await signed();
    await edge.runCommand('discovery');
    const stranger = await newSigningKey('ES256');
    cp.image = await signed(changed, stranger.privateJwk);
    await expect(edge.runCommand('discovery')).resolves.toEqual(refusal('the policy image signature does not verify with any trusted key'));
    expect(edge.status().policy_digest).toBe(image.digest);
  });

  it('refuses an image changed after signing, and a signature moved from another image', async () => {
    cp.image = await signed();
    await edge.runCommand('discovery');
    // Files changed after signing, digest recomputed: the signature covers the old digest.
    const { signature } = await signed();
    cp.image = { ...changed, signature };
    await expect(edge.runCommand('discovery')).resolves.toEqual(
      refusal(`the signature is over another digest (${image.digest}), not this image's ${changed.digest}`),
    );
    // A pinned key's valid signature of one image, attached to another.
    const other = createPolicyImage('rbac', { ...image.files, 'other.cedar': '// other\n' });
    cp.image = { ...changed, signature: (await signed(other)).signature };
    await expect(edge.runCommand('discovery')).resolves.toEqual(
      refusal(`the signature is over another digest (${other.digest}), not this image's ${changed.digest}`),
    );
    expect(edge.status().policy_digest).toBe(image.digest);
  });

  it('re-verifies its persisted image at start: one not signed by a pinned key is not loaded', async () => {
    cp.image = await signed();
    await edge.runCommand('discovery');
    await edge.close();
    ({ edge } = makeEdge('http://127.0.0.1:9', dir, { policySigningKeys: [signer.publicJwk] }));
    await edge.start();
    expect(edge.status().policy_digest).toBe(image.digest);
    await edge.close();
    // Same file, other pinned keys: fail closed rather than serve what these keys did not sign.
    ({ edge } = makeEdge('http://127.0.0.1:9', dir, { policySigningKeys: [(await newSigningKey()).publicJwk] }));
    await edge.start();
    expect(edge.status().policy_digest).toBeNull();
  });

  it('without pinned keys, an edge takes unsigned images (signing is off unless configured) and keeps no versions', async () => {
    await edge.close();
    ({ edge } = makeEdge(cp.url, dir));
    cp.image = image;
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true });
    cp.image = await signed(changed, signer.privateJwk, 5);
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true });
    expect(existsSync(versionsFile())).toBe(false);
  });
});

describe('loadPinnedSigningKeys (EDGE_POLICY_SIGNING_KEYS)', () => {
  it('reads a key set of public keys', () => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify({ keys: [{ ...signer.publicJwk, kid: 'label' }] }));
    expect(loadPinnedSigningKeys(file)).toEqual([signer.publicJwk]);
  });

  it('stops the edge for a missing, unreadable, empty or private key file, naming it', () => {
    const file = join(dir, 'keys.json');
    expect(() => loadPinnedSigningKeys(file)).toThrow(`${file}: does not exist (EDGE_POLICY_SIGNING_KEYS names it)`);
    for (const content of ['', '{"keys": []}', JSON.stringify({ keys: [signer.privateJwk] }), JSON.stringify(signer.publicJwk)]) {
      writeFileSync(file, content);
      expect(() => loadPinnedSigningKeys(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
    }
    chmodSync(file, 0o000);
    if (process.getuid?.() !== 0) expect(() => loadPinnedSigningKeys(file)).toThrow(/cannot read/);
  });
});
