/**
 * Both relay commands across the whole chain — IdP token → RBAC app → edge authorizer ←
 * relay ← management API — with real WebSockets and HTTP. Every test gets a fresh stack
 * and sets up what it needs itself, so each passes alone and in any order.
 */
import { join } from 'node:path';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { createPolicyImage, readPolicyFolder, type PolicyImage } from '../../src/policy';
import { USERS } from '../apps/app-fixture';
import { VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { admin, callResource, exec, registrations, type LogLine } from './stack-client';
import { startStack, type Stack } from './stack-fixture';

type User = keyof typeof USERS;
type Outcome = 'allowed' | 'denied';

let stack: Stack;
let rbac: PolicyImage;
const tokens = {} as Record<User, string>;

beforeEach(async () => {
  stack = await startStack();
  rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
  for (const user of Object.keys(USERS) as User[]) tokens[user] = (await stack.idp.token(USERS[user].email)).access_token;
});

afterEach(async () => {
  await stack?.close();
});

/** DELETE /resource/mega-seed through the app, checking the exact answer of both outcomes. */
async function deleteAs(user: User): Promise<Outcome> {
  const reply = await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens[user]);
  if (reply.status === 200) {
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.body).toBe('Hello from DELETE /resource/mega-seed');
    return 'allowed';
  }
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 403,
    body: { code: 'forbidden', message: 'Forbidden by policy rbac.DELETE' },
  });
  return 'denied';
}

async function deleteMatrix(): Promise<Record<User, Outcome>> {
  const users = Object.keys(USERS) as User[];
  const outcomes = await Promise.all(users.map(deleteAs));
  return Object.fromEntries(users.map((u, i) => [u, outcomes[i]])) as Record<User, Outcome>;
}

const execOk = { status: 200, body: { result: {} } };
const run = (command: 'discovery' | 'sync_edge_directory') => exec(stack.relayUrl, stack.demo, stack.edge.instanceId, command);
const replyOf = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

/** The rbac policy letting editors DELETE too, with its tests changed to match. */
function editorsMayDelete(): Record<string, string> {
  return letEditorsDelete(rbac.files);
}

/** Grants Morty `admin` centrally and syncs the edge: the state several tests start from. */
async function mortyAdminAtEdge(): Promise<void> {
  const grant = await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
  expect(grant.status).toBe(200);
  expect(replyOf(await run('sync_edge_directory'))).toEqual(execOk);
}

/** Pushes "editors may DELETE" and makes the edge load it; returns its digest. */
async function editorsMayDeleteAtEdge(): Promise<string> {
  const push = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files: editorsMayDelete() });
  expect(push.status).toBe(201);
  expect(replyOf(await run('discovery'))).toEqual(execOk);
  return (push.body as { digest: string }).digest;
}

/** `outpost_edge_syncs_total{job="policy",result=…}` from the edge's metrics endpoint. */
async function policySyncs(): Promise<Record<'updated' | 'unchanged' | 'failed', number>> {
  const text = await (await fetch(`${stack.edge.url}/metrics`)).text();
  const count = (result: string) => Number(new RegExp(`outpost_edge_syncs_total\\{job="policy",result="${result}"\\} (\\d+)`).exec(text)![1]);
  return { updated: count('updated'), unchanged: count('unchanged'), failed: count('failed') };
}

describe('relay commands end to end (IdP → RBAC app → edge ← relay)', () => {
  it('starts from the seeded matrix: only Rick may DELETE', async () => {
    expect(await deleteMatrix()).toEqual({ rick: 'allowed', morty: 'denied', summer: 'denied', beth: 'denied', jerry: 'denied' });
  });

  it('sync_edge_directory: a central grant reaches the edge exactly when exec answers', async () => {
    const grant = await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect(replyOf(grant)).toEqual({ status: 200, body: { revision: 2 } });
    // The central directory changed, the edge's replica did not: no sync has run.
    expect(await deleteAs('morty')).toBe('denied');

    expect(replyOf(await run('sync_edge_directory'))).toEqual(execOk);
    // No polling: exec answered only after the edge applied revision 2.
    expect(await deleteAs('morty')).toBe('allowed');
    expect(await deleteMatrix()).toEqual({ rick: 'allowed', morty: 'allowed', summer: 'denied', beth: 'denied', jerry: 'denied' });
  });

  it('discovery: a pushed policy is active at the edge exactly when exec answers; registrations show it', async () => {
    await mortyAdminAtEdge();
    const files = editorsMayDelete();
    const expected = createPolicyImage('rbac', files);
    const push = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files });
    expect(replyOf(push)).toEqual({ status: 201, body: { name: 'rbac', digest: expected.digest, tag: 'latest' } });
    expect(await deleteAs('summer')).toBe('denied');

    expect(replyOf(await run('discovery'))).toEqual(execOk);
    expect(await deleteAs('summer')).toBe('allowed');
    expect(await deleteMatrix()).toEqual({ rick: 'allowed', morty: 'allowed', summer: 'allowed', beth: 'denied', jerry: 'denied' });

    expect(await registrations(stack.relayUrl, stack.demo)).toEqual([
      {
        id: stack.edge.instanceId,
        info: {
          connection_id: stack.demo.connectionId,
          hostname: 'integration-edge-1',
          version: '1.2.3-test',
          policy_name: 'rbac',
          policy_digest: expected.digest,
          directory_revision: 2,
          connected: true,
          connected_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          latest_policy_digest: expected.digest,
          policy_drift: false,
          central_directory_revision: 2,
          directory_lag: 0,
        },
      },
    ]);
  });

  it('an image that got past validation but does not compile: exec 502 invalid_image with the reason, last good image kept', async () => {
    await mortyAdminAtEdge();
    const good = await editorsMayDeleteAtEdge();
    // Straight into the registry, skipping the admin API's validation: a correct digest over broken Cedar.
    await stack.store.images.push(stack.demo.tenantId, createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': 'permit (' }));
    const broken = await run('discovery');
    expect(broken.status).toBe(502);
    expect(broken.body).toEqual({
      code: 'invalid_image',
      message: expect.stringMatching(/^policy image refused, last good image kept: invalid policy image "rbac":\s+rbac\.cedar:1: failed to parse/),
    });

    // A forged digest is refused too, and says so.
    const forged = { ...createPolicyImage('rbac', rbac.files), digest: `sha256:${'0'.repeat(64)}` };
    await stack.store.images.push(stack.demo.tenantId, forged);
    const mismatch = await run('discovery');
    expect(mismatch.status).toBe(502);
    expect(mismatch.body).toEqual({
      code: 'invalid_image',
      message: `policy image refused, last good image kept: policy image digest mismatch: declared ${forged.digest}, content hashes to ${createPolicyImage('rbac', rbac.files).digest}`,
    });

    expect(await deleteMatrix()).toEqual({ rick: 'allowed', morty: 'allowed', summer: 'allowed', beth: 'denied', jerry: 'denied' });
    expect(stack.edge.edge.status().policy_digest).toBe(good);
    const [registration] = await registrations(stack.relayUrl, stack.demo);
    expect(registration?.info.policy_digest).toBe(good);
    expect((await policySyncs()).failed).toBe(2);
  });

  it('an image that fails its own tests (stored past the push check): exec 502 policy_tests_failed names the failing case, last good image kept', async () => {
    expect(stack.edge.edge.status().policy_digest).toBe(rbac.digest);
    // Straight into the registry, skipping the admin API's test run: viewers may now PUT,
    // which the shipped cases saying viewers may not PUT or POST catch at the edge.
    const viewersWrite = rbac.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"');
    await stack.store.images.push(stack.demo.tenantId, createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': viewersWrite }));
    const refused = await run('discovery');
    expect(replyOf(refused)).toEqual({
      status: 502,
      body: {
        code: 'policy_tests_failed',
        message:
          `policy image refused, last good image kept: ${VIEWERS_WRITE_REFUSAL}`,
      },
    });
    expect(stack.edge.edge.status().policy_digest).toBe(rbac.digest);
    const [registration] = await registrations(stack.relayUrl, stack.demo);
    expect(registration?.info.policy_digest).toBe(rbac.digest);
    expect((await callResource(stack.appUrl, 'PUT', 'mega-seed', tokens.beth)).status).toBe(403);
    expect((await policySyncs()).failed).toBe(1);
  });

  it('concurrent discovery execs coalesce: five answers, at most two downloads', async () => {
    // The edge serves "editors may DELETE"; pushing the seed image back gives it one to download.
    await mortyAdminAtEdge();
    await editorsMayDeleteAtEdge();
    const restored = createPolicyImage('rbac', rbac.files);
    // The seed already stored this content: the push only moves `latest` back to it (200, not 201).
    const push = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files: rbac.files });
    expect(replyOf(push)).toEqual({ status: 200, body: { name: 'rbac', digest: restored.digest, tag: 'latest' } });
    const before = await policySyncs();

    // Hold the first download until the edge has received all five commands, so they
    // provably arrive while a run is in progress.
    let imageRequests = 0;
    let commands = 0;
    let allReceived!: () => void;
    const received = new Promise<void>((resolve) => (allReceived = resolve));
    const onLog = (line: LogLine) => {
      if (line.msg === 'relay command' && ++commands === 5) allReceived();
    };
    stack.edge.logs.on('log', onLog);
    stack.hook = (req, _res, pass) => {
      if (!req.url?.startsWith('/api/v2/edge/policy-image')) return pass();
      imageRequests += 1;
      if (imageRequests > 1) return pass();
      void received.then(() => setImmediate(pass));
    };
    try {
      const replies = await Promise.all(Array.from({ length: 5 }, () => run('discovery')));
      expect(replies.map(replyOf)).toEqual(Array(5).fill(execOk));
    } finally {
      stack.hook = undefined;
      stack.edge.logs.off('log', onLog);
    }

    expect(commands).toBe(5);
    // One run that downloads the new image, one follow-up for the four that came meanwhile (a 304).
    expect(imageRequests).toBe(2);
    const after = await policySyncs();
    expect({ updated: after.updated - before.updated, unchanged: after.unchanged - before.unchanged, failed: after.failed - before.failed }).toEqual({
      updated: 1,
      unchanged: 1,
      failed: 0,
    });
    expect(stack.edge.edge.status().policy_digest).toBe(restored.digest);
    expect(await deleteMatrix()).toEqual({ rick: 'allowed', morty: 'allowed', summer: 'denied', beth: 'denied', jerry: 'denied' });
  });
});
