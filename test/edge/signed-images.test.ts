/**
 * An edge with pinned signing keys (`EDGE_POLICY_SIGNING_KEYS`) verifies every image itself,
 * whatever the control plane or the image says: unsigned, wrongly signed and re-signed
 * images never become active. Against the fake control plane, which serves any JSON.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Edge } from '../../src/edge';
import { loadPinnedSigningKeys } from '../../src/edge/pinned-signing-keys';
import { createPolicyImage, signImageDigest, type PrivateSigningKey, type PublicSigningKey } from '../../src/policy';
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
const signed = async (img = image, key = signer.privateJwk) => ({ ...img, signature: await signImageDigest(img.digest, key) });

describe('an edge with pinned signing keys', () => {
  it('activates a correctly signed image and persists it with its signature', async () => {
    cp.image = await signed();
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: image.digest } });
    expect(JSON.parse(readFileSync(join(dir, 'policy-image.json'), 'utf8'))).toEqual(cp.image);
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

  it('without pinned keys, an edge takes unsigned images (signing is off unless configured)', async () => {
    await edge.close();
    ({ edge } = makeEdge(cp.url, dir));
    cp.image = image;
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true });
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
