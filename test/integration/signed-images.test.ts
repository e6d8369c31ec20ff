/**
 * Signed images across the chain: a tenant registers a key, pushes signed, and an edge
 * pinning that key verifies each image itself — an image that reaches the registry
 * unsigned or wrongly signed (here: stored directly, past the push check) never becomes
 * active there, and exec `discovery` answers 502 `invalid_image` with the reason.
 */
import { join } from 'node:path';
import { createPolicyImage, readPolicyFolder, signImageDigest, type PolicyImage } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { admin, exec, type TenantCredentials } from './stack-client';
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
    signature: await signImageDigest(signedImage.digest, key.privateJwk),
  });
  expect(push.status).toBe(201);

  // Starts (and syncs) only because the tagged image is signed by the key it pins.
  const pinned = await stack.startEdge(stack.demo, { policySigningKeys: [key.publicJwk] });
  expect(pinned.edge.status().policy_digest).toBe(signedImage.digest);

  const refusedWith = (reason: string) => ({ status: 502, body: { code: 'invalid_image', message: `policy image refused, last good image kept: ${reason}` } });
  await stack.store.images.push(stack.demo.tenantId, version(2));
  expect(await discovery(pinned, stack.demo)).toEqual(refusedWith('the policy image is not signed, and a signature is required'));
  const stranger = await newSigningKey();
  await stack.store.images.push(stack.demo.tenantId, version(3), await signImageDigest(version(3).digest, stranger.privateJwk));
  expect(await discovery(pinned, stack.demo)).toEqual(refusedWith('the policy image signature does not verify with any trusted key'));
  expect(pinned.edge.status().policy_digest).toBe(signedImage.digest);

  // The stack's primary edge pins no key: it takes the same image (signing is per edge configuration).
  expect(await discovery(stack.edge, stack.demo)).toEqual({ status: 200, body: { result: {} } });
  expect(stack.edge.edge.status().policy_digest).toBe(version(3).digest);
});
