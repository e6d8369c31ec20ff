/**
 * Signed images across the chain: a tenant registers a key, pushes signed, and an edge
 * pinning that key verifies each image itself — an image that reaches the registry
 * unsigned or wrongly signed (here: stored directly, past the push check) never becomes
 * active there, and exec `discovery` answers 502 `invalid_image` with the reason. An older
 * image replayed with its old signature is refused by the control plane and, served
 * anyway, by the edge, also after a restart; signed again as a new version, it is taken.
 */
import { join } from 'node:path';
import { createPolicyImage, readPolicyFolder, signPolicyImage, type PolicyImage, type PrivateSigningKey } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { startEdgeNode } from './edge-node';
import { admin, edgeAllows, exec, type TenantCredentials } from './stack-client';
import { startStack, type EdgeHandle, type Stack } from './stack-fixture';

let stack: Stack;
let rbac: PolicyImage;

beforeEach(async () => {
  stack = await startStack();
  rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
});

afterEach(async () => {
  await stack?.close();
});

const version = (n: number) => createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// v${n}\n` });
const sign = (image: PolicyImage, key: PrivateSigningKey, version: number) => signPolicyImage({ name: image.name, digest: image.digest, version }, key);
const refusedWith = (reason: string) => ({ status: 502, body: { code: 'invalid_image', message: `policy image refused, last good image kept: ${reason}` } });
const discovery = async (edge: EdgeHandle, tenant: TenantCredentials) => {
  const reply = await exec(stack.relayUrl, tenant, edge.instanceId, 'discovery');
  return { status: reply.status, body: reply.body };
};

it('register a key → push signed → an edge pinning the key activates it; unsigned or wrongly signed images are refused there', async () => {
  const key = await newSigningKey();
  expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/signing-keys', { jwk: key.publicJwk })).status).toBe(201);
  const signedImage = version(1);
  const push = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', {
    files: signedImage.files,
    signature: await sign(signedImage, key.privateJwk, 1),
  });
  expect(push.status).toBe(201);

  // Starts (and syncs) only because the tagged image is signed by the key it pins.
  const pinned = await stack.startEdge(stack.demo, { policySigningKeys: [key.publicJwk] });
  expect(pinned.edge.status().policy_digest).toBe(signedImage.digest);

  await stack.store.images.push(stack.demo.tenantId, version(2));
  expect(await discovery(pinned, stack.demo)).toEqual(refusedWith('the policy image is not signed, and a signature is required'));
  const stranger = await newSigningKey();
  await stack.store.images.push(stack.demo.tenantId, version(3), await sign(version(3), stranger.privateJwk, 2));
  expect(await discovery(pinned, stack.demo)).toEqual(refusedWith('the policy image signature does not verify with any trusted key'));
  expect(pinned.edge.status().policy_digest).toBe(signedImage.digest);

  // The stack's primary edge pins no key: it takes the same image (signing is per edge configuration).
  expect(await discovery(stack.edge, stack.demo)).toEqual({ status: 200, body: { result: {} } });
  expect(stack.edge.edge.status().policy_digest).toBe(version(3).digest);
});

it('an older image pushed again with its old signature is refused by the control plane, and served anyway, by a pinning edge (also after a restart); signed as a new version it is taken', async () => {
  const key = await newSigningKey();
  expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/signing-keys', { jwk: key.publicJwk })).status).toBe(201);
  // A user with no roles: A lets everyone DELETE, B (the shipped rules) only admins.
  expect((await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/nora', { email: 'nora@example.com', name: 'Nora' })).status).toBe(200);
  const a = createPolicyImage('rbac', {
    'manifest.json': rbac.files['manifest.json']!,
    'schema.cedarschema': rbac.files['schema.cedarschema']!,
    'rbac.cedar': `${rbac.files['rbac.cedar']}\npermit (principal, action == Outpost::Action::"DELETE", resource is Outpost::Resource);\n`,
  });
  const b = version(2);
  const pushSigned = async (image: PolicyImage, signature: string) => {
    const reply = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files: image.files, signature });
    return { status: reply.status, body: reply.body };
  };
  const aV1 = await sign(a, key.privateJwk, 1);
  expect((await pushSigned(a, aV1)).status).toBe(201);
  expect((await pushSigned(b, await sign(b, key.privateJwk, 2))).status).toBe(201);

  // The replay at the push: refused, latest stays B.
  expect(await pushSigned(a, aV1)).toEqual({
    status: 409,
    body: {
      code: 'stale_signature',
      message:
        'the signature is for version 1 of policy rbac, and version 2 was pushed already: a signed push must carry a higher version, ' +
        'so an older image cannot return with its old signature. To roll back, sign the older image again as a new version ' +
        '(npm run policy -- push <folder> --sign <private key file> picks the next one)',
      highest_version: 2,
    },
  });
  expect(await stack.store.images.taggedDigest(stack.demo.tenantId, 'rbac')).toBe(b.digest);

  let pinned = await stack.startEdge(stack.demo, { policySigningKeys: [key.publicJwk] });
  const noraDeletes = () => edgeAllows(pinned.url, { type: 'SUB', value: 'nora@example.com' }, 'rbac.DELETE', 'mega-seed');
  expect(pinned.edge.status().policy_digest).toBe(b.digest);
  expect(await noraDeletes()).toBe(false);

  // A control plane that serves the older image with its old signature anyway.
  stack.hook = (req, res, pass) => {
    if (!req.url?.startsWith('/api/v2/edge/policy-image')) return pass();
    res.writeHead(200, { 'content-type': 'application/json', etag: `"${a.digest}"` }).end(JSON.stringify({ ...a, signature: aV1 }));
  };
  const stale = refusedWith(
    'the image is signed as version 1 of policy rbac, older than version 2 this edge already activated (an old image served again); ' +
      'a rollback must be signed again as a new version',
  );
  expect(await discovery(pinned, stack.demo)).toEqual(stale);
  expect(pinned.edge.status().policy_digest).toBe(b.digest);
  expect(await noraDeletes()).toBe(false);

  // Restarted on its data directory: it starts from B and still refuses A.
  const { dataDir, credentials } = pinned;
  await pinned.stop();
  pinned = await startEdgeNode({
    relayUrl: stack.relayUrl,
    credentials,
    dataDir,
    hostname: 'restarted-pinned-edge',
    jwt: { issuer: stack.idp.issuer, jwksUri: stack.idp.jwksUri, audience: stack.idp.audience },
    policySigningKeys: [key.publicJwk],
    waitUntilSynced: false,
  });
  try {
    expect(pinned.edge.status().policy_digest).toBe(b.digest);
    await pinned.edge.settle(5_000);
    expect(await pinned.edge.runCommand('discovery')).toEqual({ ok: false, error: stale.body });
    expect(pinned.edge.status().policy_digest).toBe(b.digest);
    expect(await noraDeletes()).toBe(false);

    // A deliberate rollback: A signed again as version 3, taken by the control plane and the edge.
    stack.hook = undefined;
    expect(await pushSigned(a, await sign(a, key.privateJwk, 3))).toEqual({ status: 200, body: { name: 'rbac', digest: a.digest, tag: 'latest' } });
    expect(await stack.store.images.taggedDigest(stack.demo.tenantId, 'rbac')).toBe(a.digest);
    expect(await pinned.edge.runCommand('discovery')).toMatchObject({ ok: true, status: { policy_digest: a.digest } });
    expect(await noraDeletes()).toBe(true);
  } finally {
    await pinned.stop();
  }
});
