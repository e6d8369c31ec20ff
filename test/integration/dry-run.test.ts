/**
 * The dry run across the chain: a real edge records the decisions it makes, the control
 * plane asks it for them over the relay and replays them against a candidate image, and
 * `npm run policy -- diff` prints the flips. The expected flips are computed by hand from
 * the seeded Citadel directory: Rick is an admin, Morty and Summer are editors, Beth a
 * viewer; the candidate lets editors DELETE.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffPolicyFolder, type DryRunAnswer } from '../../scripts/lib/diff-policy-folder';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { ScriptError } from '../../scripts/lib/script-error';
import { createTenant } from '../../src/control-plane';
import { CONTROL_PLANE_ROUTES } from '../openapi/control-plane-routes';
import { loadDirectorySeed } from '../../src/directory';
import { createPolicyImage, readPolicyFolder, type PolicyImage } from '../../src/policy';
import { USERS } from '../apps/app-fixture';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { expectConforms } from '../openapi/conformance';
import { admin, edgeAllows, waitFor, type TenantCredentials } from './stack-client';
import { startStack, type Stack } from './stack-fixture';

type User = keyof typeof USERS;
/** The seeded directory's names: the dry run names each flip's principal. */
const NAMES: Record<User, string> = { rick: 'Rick Sanchez', morty: 'Morty Smith', summer: 'Summer Smith', beth: 'Beth Smith', jerry: 'Jerry Smith' };

let stack: Stack;
let rbac: PolicyImage;

describe.each(SQL_ENGINES)('dry run with the store on $name', (engine) => {
  beforeEach(async () => {
    stack = await startStack(engine);
    rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
  });

  afterEach(async () => {
    await stack?.close();
  });

  /**
   * `npm run policy -- diff` of a copy of policies/rbac where editors may DELETE, against
   * `instance`: the printed lines (rejects as the script does).
   */
  async function diffEditorsMayDelete(instance = stack.edge.instanceId): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-diff-'));
    try {
      cpSync(join(stack.config.policiesDir, 'rbac'), join(dir, 'rbac'), { recursive: true });
      for (const [path, text] of Object.entries(editorsMayDelete())) writeFileSync(join(dir, 'rbac', path), text);
      const printed: string[] = [];
      const creds = { relayUrl: stack.relayUrl, tenantId: stack.demo.tenantId, key: stack.demo.adminApiKey, source: 'test' };
      await diffPolicyFolder(join(dir, 'rbac'), { instance }, creds, (text) => printed.push(text));
      return printed[0]!.split('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The rbac policy letting editors DELETE too, with its tests changed to match. */
  function editorsMayDelete(): Record<string, string> {
    return letEditorsDelete(rbac.files);
  }

  /** The dry-run call; every answer is checked against the control plane's OpenAPI route table. */
  async function dryRun(body: unknown, tenant: TenantCredentials = stack.demo, name = 'rbac'): Promise<{ status: number; body: unknown }> {
    const reply = await admin(stack.relayUrl, tenant, 'POST', `/api/v2/admin/policies/${name}/dry-run`, body);
    const probe = { method: 'POST', path: `/api/v2/admin/policies/${name}/dry-run`, headers: { 'content-type': 'application/json', 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.adminApiKey}` } };
    // The same request again, through the conformance check (a dry run changes nothing).
    expect(await expectConforms(stack.relayUrl, CONTROL_PLANE_ROUTES, { ...probe, body: JSON.stringify(body) })).toEqual({ status: reply.status, body: reply.body });
    return { status: reply.status, body: reply.body };
  }

  /** Morty, Rick, Beth and Summer each ask the primary edge for DELETE and GET on mega-seed. */
  async function recordTraffic(): Promise<Record<string, boolean>> {
    const made: Record<string, boolean> = {};
    for (const user of ['morty', 'rick', 'beth', 'summer'] as User[]) {
      for (const action of ['DELETE', 'GET']) {
        made[`${user} ${action}`] = await edgeAllows(stack.edge.url, { type: 'SUB', value: USERS[user].email }, `rbac.${action}`, 'mega-seed');
      }
    }
    return made;
  }

  const policyFlip = (user: User, action: string, current: 'allow' | 'deny', candidate: 'allow' | 'deny') => ({
    principal: USERS[user].id,
    principal_name: NAMES[user],
    principal_email: USERS[user].email,
    action,
    resource: { type: 'Resource', id: 'mega-seed', attributes: {} },
    current,
    candidate,
  });

  /** In a stable order, to compare lists the answer does not order. */
  const sorted = (list: readonly unknown[]) => [...list].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));

  const flip = (user: User, action: string, recorded: 'allow' | 'deny', candidate: 'allow' | 'deny', digest: string) => ({
    principal: USERS[user].id,
    principal_name: NAMES[user],
    principal_email: USERS[user].email,
    action,
    resource: { type: 'Resource', id: 'mega-seed', attributes: {} },
    recorded,
    candidate,
    policy_digest: digest,
    directory_revision: 1,
  });

  it("lists exactly the recorded decisions the candidate flips: Morty's and Summer's DELETE, deny → allow", async () => {
    expect(await recordTraffic()).toEqual({
      'morty DELETE': false,
      'morty GET': true,
      'rick DELETE': true,
      'rick GET': true,
      'beth DELETE': false,
      'beth GET': true,
      'summer DELETE': false,
      'summer GET': true,
    });
    // Asked again: the sample holds distinct requests, not every decision.
    await recordTraffic();
    const seeded = stack.edge.edge.status().policy_digest!;
    const files = editorsMayDelete();
    const reply = await dryRun({ files, instance_id: stack.edge.instanceId });
    expect(reply.status).toBe(200);
    const body = reply.body as DryRunAnswer & { changes: unknown[] };
    expect({ ...body, changes: [...body.changes].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))) }).toEqual({
      name: 'rbac',
      instance_id: stack.edge.instanceId,
      candidate_digest: createPolicyImage('rbac', files).digest,
      edge_policy_digest: seeded,
      directory_revision: 1,
      sampled: 8,
      unchanged: 6,
      failed: 0,
      flips: { allow_to_deny: 0, deny_to_allow: 2 },
      changes: [flip('morty', 'DELETE', 'deny', 'allow', seeded), flip('summer', 'DELETE', 'deny', 'allow', seeded)].sort((x, y) =>
        JSON.stringify(x).localeCompare(JSON.stringify(y)),
      ),
      // Nothing changed in the directory since: the policy alone causes the same two flips.
      policy_only: {
        failed: 0,
        flips: { allow_to_deny: 0, deny_to_allow: 2 },
        changes: expect.arrayContaining([policyFlip('morty', 'DELETE', 'deny', 'allow'), policyFlip('summer', 'DELETE', 'deny', 'allow')]),
      },
    });
    // Nothing was pushed: the edge and the registry still hold the seeded image.
    expect((await admin(stack.relayUrl, stack.demo, 'GET', '/api/v2/admin/policies/rbac').then((r) => r.body as { latest: string })).latest).toBe(seeded);

    // The same candidate without a change: nothing flips.
    expect(await dryRun({ files: rbac.files, instance_id: stack.edge.instanceId })).toMatchObject({ status: 200, body: { sampled: 8, unchanged: 8, flips: { allow_to_deny: 0, deny_to_allow: 0 }, changes: [] } });
  });

  it("separates the candidate's own flips from directory changes made after recording (hand-computed table)", async () => {
    await recordTraffic();
    const seeded = stack.edge.edge.status().policy_digest!;
    // After recording: Rick loses admin (keeps evil_genius, which grants nothing), Beth becomes admin.
    expect((await admin(stack.relayUrl, stack.demo, 'DELETE', '/api/v2/admin/directory/users/rick@the-citadel.com/roles/admin')).status).toBe(200);
    expect((await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/beth@the-smiths.com/roles/admin')).status).toBe(200);
    //                 recorded (rev 1)  seeded image, rev 3  candidate, rev 3   cause
    //  morty  DELETE  deny              deny                 allow               policy
    //  summer DELETE  deny              deny                 allow               policy
    //  beth   DELETE  deny              allow                allow               directory
    //  rick   DELETE  allow             deny                 deny                directory
    //  rick   GET     allow             deny                 deny                directory
    //  every other GET: allow, allow, allow
    const reply = await dryRun({ files: editorsMayDelete(), instance_id: stack.edge.instanceId });
    expect(reply.status).toBe(200);
    const body = reply.body as { changes: unknown[]; policy_only: { changes: unknown[] } };
    expect({ ...body, changes: sorted(body.changes), policy_only: { ...body.policy_only, changes: sorted(body.policy_only.changes) } }).toMatchObject({
      directory_revision: 3,
      sampled: 8,
      unchanged: 3,
      failed: 0,
      flips: { allow_to_deny: 2, deny_to_allow: 3 },
      changes: sorted([
        flip('morty', 'DELETE', 'deny', 'allow', seeded),
        flip('summer', 'DELETE', 'deny', 'allow', seeded),
        flip('beth', 'DELETE', 'deny', 'allow', seeded),
        flip('rick', 'DELETE', 'allow', 'deny', seeded),
        flip('rick', 'GET', 'allow', 'deny', seeded),
      ]),
      policy_only: {
        failed: 0,
        flips: { allow_to_deny: 0, deny_to_allow: 2 },
        changes: sorted([policyFlip('morty', 'DELETE', 'deny', 'allow'), policyFlip('summer', 'DELETE', 'deny', 'allow')]),
      },
    });
  });

  it("says so when the registry no longer holds the edge's image: policy_only is null, the flips against the recording stay", async () => {
    await recordTraffic();
    const seeded = stack.edge.edge.status().policy_digest!;
    // As the quota does with the oldest untagged image: latest moves on, the edge's image is dropped.
    await stack.store.images.push(stack.demo.tenantId, createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// newer\n` }));
    const raw = await openLocation(stack.controlPlaneLocation);
    await raw.run('DELETE FROM policy_images WHERE tenant_id = ? AND digest = ?', [stack.demo.tenantId, seeded]);
    await raw.close();
    expect(await stack.store.images.stored(stack.demo.tenantId, 'rbac', seeded)).toBeUndefined();
    const reply = await dryRun({ files: editorsMayDelete(), instance_id: stack.edge.instanceId });
    expect(reply).toMatchObject({ status: 200, body: { edge_policy_digest: seeded, flips: { allow_to_deny: 0, deny_to_allow: 2 }, policy_only: null } });
    const lines = await diffEditorsMayDelete();
    expect(lines[1]).toBe(`deny -> allow  ?      ${USERS.morty.email}  DELETE  Resource:mega-seed`);
    expect(lines.at(-1)).toBe("the edge's current image is not in the registry: flips caused by the policy alone are not separated");
  });

  it('npm run policy -- diff prints the flips as a table', async () => {
    await recordTraffic();
    const digest = createPolicyImage('rbac', editorsMayDelete()).digest;
    expect(await diffEditorsMayDelete()).toEqual([
      'flip           cause   principal              action  resource',
      `deny -> allow  policy  ${USERS.morty.email}  DELETE  Resource:mega-seed`,
      `deny -> allow  policy  ${USERS.summer.email}  DELETE  Resource:mega-seed`,
      `rbac ${digest} against ${stack.edge.instanceId}'s 8 recorded decisions (central directory revision 1): 0 allow -> deny, 2 deny -> allow, 6 unchanged`,
      "the policy alone (against the edge's current image, same directory): 0 allow -> deny, 2 deny -> allow",
    ]);

    // A directory change since recording: Beth's DELETE flips too, but not because of the policy.
    expect((await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/beth@the-smiths.com/roles/admin')).status).toBe(200);
    expect((await diffEditorsMayDelete()).slice(0, 4)).toEqual([
      'flip           cause           principal              action  resource',
      `deny -> allow  policy          ${USERS.morty.email}  DELETE  Resource:mega-seed`,
      `deny -> allow  policy          ${USERS.summer.email}  DELETE  Resource:mega-seed`,
      `deny -> allow  since recorded  ${USERS.beth.email}    DELETE  Resource:mega-seed`,
    ]);

    // An unknown instance: the control plane's answer, as a script error.
    await expect(diffEditorsMayDelete('nobody')).rejects.toThrow(
      new ScriptError('404 instance_not_found: no instance with this id is registered for the tenant'),
    );
  });

  it('leaves a principal the directory no longer holds unnamed', async () => {
    await recordTraffic();
    // After recording, Summer leaves the directory: her GET, allowed then, is denied now.
    expect((await admin(stack.relayUrl, stack.demo, 'DELETE', `/api/v2/admin/directory/users/${USERS.summer.email}`)).status).toBe(200);
    const reply = await dryRun({ files: rbac.files, instance_id: stack.edge.instanceId });
    expect(reply.body).toMatchObject({
      flips: { allow_to_deny: 1, deny_to_allow: 0 },
      changes: [{ principal: USERS.summer.id, principal_name: null, principal_email: null, action: 'GET', recorded: 'allow', candidate: 'deny' }],
    });
    expect(await diffEditorsMayDelete()).toContain(`allow -> deny  since recorded  ${USERS.summer.id}  GET     Resource:mega-seed`);
  });

  it('an edge that never decided has an empty sample; a central change since is replayed at the central revision', async () => {
    const fresh = await stack.startEdge(stack.demo);
    const grant = await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect(grant.status).toBe(200);
    expect(await dryRun({ files: editorsMayDelete(), instance_id: fresh.instanceId })).toMatchObject({
      status: 200,
      body: { instance_id: fresh.instanceId, directory_revision: 2, sampled: 0, unchanged: 0, flips: { allow_to_deny: 0, deny_to_allow: 0 }, changes: [], policy_only: { failed: 0, flips: { allow_to_deny: 0, deny_to_allow: 0 }, changes: [] } },
    });
  });

  it('validates the candidate like a push, and answers with the relay errors for the instance', async () => {
    await recordTraffic();
    const instance_id = stack.edge.instanceId;
    // A candidate failing its own tests never reaches the edge.
    const failing = { ...rbac.files, 'rbac.cedar': rbac.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"') };
    expect(await dryRun({ files: failing, instance_id })).toMatchObject({ status: 400, body: { code: 'policy_tests_failed' } });
    expect(await dryRun({ files: rbac.files, instance_id: 'bad id!' })).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    expect(await dryRun({ files: rbac.files, instance_id: 'nobody' })).toMatchObject({ status: 404, body: { code: 'instance_not_found' } });

    // Another policy than the instance serves.
    const todo = readPolicyFolder(join(stack.config.policiesDir, 'todo'));
    expect(await dryRun({ files: todo.files, instance_id }, stack.demo, 'todo')).toMatchObject({ status: 409, body: { code: 'policy_mismatch', message: `instance ${instance_id} serves policy rbac, not todo` } });

    // Another tenant's admin key cannot reach the demo tenant's instance: it is simply unknown.
    const { roles, users, resources } = loadDirectorySeed(stack.config.directorySeedFile).directory;
    const keys = await createTenant(stack.store, { name: 'tenant b', directory: { roles, users, resources } });
    const other = { ...keys, ...(await stack.store.tenants.addConnection(keys.tenantId, 'rbac')) };
    expect(await dryRun({ files: rbac.files, instance_id }, other)).toEqual(
      expect.objectContaining({ status: 404, body: { code: 'instance_not_found', message: 'no instance with this id is registered for the tenant' } }),
    );

    await stack.edge.stop();
    const notConnected = await waitFor('the relay to see the edge gone', async () => {
      const reply = await dryRun({ files: rbac.files, instance_id });
      return reply.status === 409 ? reply : undefined;
    });
    expect(notConnected.body).toEqual({ code: 'instance_not_connected', message: 'the instance is registered but not connected' });
  });
});
