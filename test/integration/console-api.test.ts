/**
 * The console's JSON API (docs/reference/api.md, Console API) on the real chain: a real IdP issuing the
 * console's tokens (code flow and password grant), the control plane with its relay and a real
 * edge. Membership and role are checked on every route; a token for another audience is 401.
 */
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { CONSOLE_CLIENT_ID, CONTROL_PLANE_AUDIENCE } from '../../src/config';
import { createTenant, recordCliAudit } from '../../src/control-plane';
import { CONTROL_PLANE_ROUTES } from '../openapi/control-plane-routes';
import { createPolicyImage, readPolicyFolder, signPolicyImage, signingKeyId } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { expectConforms } from '../openapi/conformance';
import { admin, exec, listRegistrations, waitFor, type RegistrationView } from './stack-client';
import { consoleToken, startStack, type Stack } from './stack-fixture';

const RICK = { email: 'rick@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01' };
const MORTY = { email: 'morty@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02' };
const SUMMER = { email: 'summer@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e03' };
const BETH = { email: 'beth@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e04' };

let stack: Stack;
const tokens: Record<string, string> = {};



/** Calls the console API as `user` (or with a raw Authorization value), checking the answer against the route table. */
function call(method: string, path: string, as: { email: string } | { authorization: string } | undefined, body?: unknown) {
  const authorization = as === undefined ? undefined : 'authorization' in as ? as.authorization : `Bearer ${tokens[as.email]}`;
  return expectConforms(stack.relayUrl, CONTROL_PLANE_ROUTES, {
    method,
    path: `/console/api${path}`,
    headers: { ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const demo = () => `/tenants/${stack.demo.tenantId}`;
const personalOf = async (user: { email: string }) => {
  const me = (await call('GET', '/me', user)).body as { accounts: { tenant_id: string; kind: string }[] };
  return me.accounts.find((a) => a.kind === 'personal')!.tenant_id;
};
/** What every audit entry by a console user carries, named from the demo directory. */
const byUser = (user: { id: string; email: string }, name: string | null) => ({
  id: expect.any(Number),
  actor: user.id,
  actor_kind: 'user',
  actor_name: name,
  actor_email: name === null ? null : user.email,
  at: expect.any(String),
});
const byRick = byUser(RICK, 'Rick Sanchez');
const byMorty = byUser(MORTY, 'Morty Smith');
/** Morty in his personal account, whose directory has no users. */
const byMortyUnnamed = byUser(MORTY, null);
const SUMMER_TARGET = { target: SUMMER.id, target_name: 'Summer Smith', target_email: SUMMER.email, outcome: 'ok' };
const forbidden = (least: string, yours: string) => ({ status: 403, body: { code: 'forbidden', message: `this needs the ${least} role; yours is ${yours}` } });
const notFound = { status: 404, body: { code: 'tenant_not_found', message: 'no such tenant among your accounts' } };

// Every suite below runs on each engine in turn, against one stack whose store is on it.
describe.each(SQL_ENGINES)('on $name', (engine) => {
  beforeAll(async () => {
    stack = await startStack(engine);
    for (const user of [RICK, MORTY, SUMMER, BETH]) tokens[user.email] = await consoleToken(stack, user.email);
  });
  afterAll(async () => {
    await stack?.close();
  });

  describe('console API sign-in', () => {
    it("takes the code flow's access token: the console client's tokens carry the control plane's audience", async () => {
      const accessToken = await consoleToken(stack, RICK.email);
      expect(decodeJwt(accessToken)).toMatchObject({ aud: CONTROL_PLANE_AUDIENCE, client_id: CONSOLE_CLIENT_ID, sub: RICK.id });
      // The IdP's own userinfo takes it too: the console may show the user's name.
      const info = await fetch(`${stack.idp.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(await info.json()).toMatchObject({ sub: RICK.id, name: 'Rick Sanchez', email: RICK.email });
      const me = await call('GET', '/me', { authorization: `Bearer ${accessToken}` });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        user: { id: RICK.id },
        accounts: [
          { tenant_id: expect.any(String), name: 'Rick Sanchez (personal)', kind: 'personal', role: 'owner' },
          { tenant_id: stack.demo.tenantId, name: 'demo', kind: 'organization', role: 'owner' },
        ],
      });
    });

    it('refuses a token for the sample API (wrong audience), an ID token and no token, with the {code, message} shape', async () => {
      const sampleApi = await stack.idp.token(RICK.email);
      expect(decodeJwt(sampleApi.access_token).aud).toBe(stack.idp.audience);
      const wrongAudience = await call('GET', '/me', { authorization: `Bearer ${sampleApi.access_token}` });
      expect(wrongAudience.status).toBe(401);
      expect(wrongAudience.body).toEqual({ code: 'invalid_token', message: expect.any(String) });
      const idToken = await call('GET', '/me', { authorization: `Bearer ${sampleApi.id_token}` });
      expect(idToken).toEqual({ status: 401, body: { code: 'invalid_token', message: expect.any(String) } });
      const none = await fetch(`${stack.relayUrl}/console/api${demo()}`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="outpost-console"');
      expect(await none.json()).toEqual({ code: 'unauthorized', message: expect.any(String) });
      // The console's own token is not taken from the query string either.
      const query = await fetch(`${stack.relayUrl}/console/api/me?access_token=${tokens[RICK.email]}`, { headers: { authorization: `Bearer ${tokens[RICK.email]}` } });
      expect(query.status).toBe(400);
    });

    it('lists every account of the user with the role (the tenant switcher)', async () => {
      const beth = await call('GET', '/me', BETH);
      expect(beth.body).toEqual({
        user: { id: BETH.id },
        accounts: [
          { tenant_id: expect.any(String), name: 'Beth Smith (personal)', kind: 'personal', role: 'owner' },
          { tenant_id: stack.demo.tenantId, name: 'demo', kind: 'organization', role: 'viewer' },
        ],
      });
    });
  });

  describe('console API tenants', () => {
    it('shows an organization with its members, and a personal account without', async () => {
      const org = await call('GET', demo(), MORTY);
      expect(org).toEqual({
        status: 200,
        body: {
          id: stack.demo.tenantId,
          name: 'demo',
          kind: 'organization',
          role: 'admin',
          members: [
            { user_id: RICK.id, role: 'owner', since: expect.any(String), name: 'Rick Sanchez', email: RICK.email },
            { user_id: MORTY.id, role: 'admin', since: expect.any(String), name: 'Morty Smith', email: MORTY.email },
            { user_id: BETH.id, role: 'viewer', since: expect.any(String), name: 'Beth Smith', email: BETH.email },
          ],
        },
      });
      const mine = await personalOf(SUMMER);
      expect(await call('GET', `/tenants/${mine}`, SUMMER)).toEqual({
        status: 200,
        body: { id: mine, name: 'Summer Smith (personal)', kind: 'personal', role: 'owner' },
      });
    });

    it("answers 404 for another user's tenant, exactly as for one that does not exist", async () => {
      const bethsOwn = await personalOf(BETH);
      expect(await call('GET', `/tenants/${bethsOwn}`, RICK)).toEqual(notFound);
      expect(await call('GET', `/tenants/${bethsOwn}/connections`, RICK)).toEqual(notFound);
      expect(await call('POST', `/tenants/${bethsOwn}/discovery-key/rotate`, RICK)).toEqual(notFound);
      expect(await call('GET', '/tenants/00000000-0000-0000-0000-000000000000', RICK)).toEqual(notFound);
      // Summer is not a member of the demo organization: it is not hers to see.
      expect(await call('GET', `${demo()}/authorizers`, SUMMER)).toEqual(notFound);
    });

    it("names members from the tenant's own directory only: another tenant's names never show", async () => {
      // Summer owns it and Morty is its admin; its directory knows Morty by another name, and not Summer at all.
      const otherMorty = { id: MORTY.id, email: 'morty@acme.test', name: 'Acme Morty', roles: [] };
      const acme = (await createTenant(stack.store, { name: 'acme-names', directory: { roles: [], users: [otherMorty], resources: [] }, owner: SUMMER.id })).tenantId;
      await stack.store.members.setMember(acme, MORTY.id, 'admin');
      const members = ((await call('GET', `/tenants/${acme}`, SUMMER)).body as { members: unknown[] }).members;
      expect(members).toHaveLength(2);
      expect(members).toEqual(
        expect.arrayContaining([
          { user_id: SUMMER.id, role: 'owner', since: expect.any(String), name: null, email: null },
          { user_id: MORTY.id, role: 'admin', since: expect.any(String), name: 'Acme Morty', email: 'morty@acme.test' },
        ]),
      );
      // The same goes for the audit log: Summer's own change, in a tenant whose directory lacks her.
      await call('PUT', `/tenants/${acme}/members/${BETH.id}`, SUMMER, { role: 'viewer' });
      const [entry] = ((await call('GET', `/tenants/${acme}/audit`, SUMMER)).body as { entries: unknown[] }).entries;
      expect(entry).toMatchObject({ actor: SUMMER.id, actor_name: null, actor_email: null, target: BETH.id, target_name: null, target_email: null });
      expect(JSON.stringify(members)).not.toContain('summer@the-smiths.com');
    });
  });

  describe('console API authorizers', () => {
    it("lists the tenant's edges as the relay's registrations do", async () => {
      const listed = await call('GET', `${demo()}/authorizers`, BETH);
      expect(listed.status).toBe(200);
      const relay = await listRegistrations(stack.relayUrl, stack.demo);
      expect(listed.body).toEqual(relay.body);
      const edge = (listed.body as { result: RegistrationView[] }).result.find((r) => r.id === stack.edge.instanceId)!;
      expect(edge.info).toMatchObject({ connection_id: stack.demo.connectionId, hostname: expect.stringMatching(/^integration-edge-/), connected: true, policy_name: 'rbac' });
      expect(await call('GET', `${demo()}/authorizers?page_size=0`, BETH)).toEqual({
        status: 400,
        body: { code: 'bad_request', message: 'page_size must be an integer from 1 to 1000' },
      });
    });

    it('sends a real command to a real edge for an admin, and refuses a viewer (403) before anything reaches the edge', async () => {
      const path = `${demo()}/authorizers/${stack.edge.instanceId}/commands`;
      const grant = await admin(stack.relayUrl, stack.demo, 'PUT', `/api/v2/admin/directory/users/${SUMMER.id}/roles/admin`);
      const revision = (grant.body as { revision: number }).revision;
      expect(await call('POST', path, BETH, { command: 'sync_edge_directory' })).toEqual(forbidden('admin', 'viewer'));
      expect((await registrationOfEdge()).info.directory_revision).toBeLessThan(revision);

      expect(await call('POST', path, MORTY, { command: 'sync_edge_directory' })).toEqual({ status: 200, body: { result: {} } });
      expect((await registrationOfEdge()).info.directory_revision).toBe(revision);
      expect(await call('POST', path, RICK, { command: 'discovery' })).toEqual({ status: 200, body: { result: {} } });
    });

    it("passes the relay's errors on, and checks the body", async () => {
      const path = (id: string) => `${demo()}/authorizers/${id}/commands`;
      expect(await call('POST', path('no-such-edge'), MORTY, { command: 'discovery' })).toEqual({
        status: 404,
        body: { code: 'instance_not_found', message: expect.any(String) },
      });
      const bad = await call('POST', path(stack.edge.instanceId), MORTY, { command: 'reboot' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ code: 'bad_request', message: expect.stringMatching(/^invalid request body: command: /) });
      expect((await call('POST', path('%20bad'), MORTY, { command: 'discovery' })).body).toEqual({ code: 'bad_request', message: 'invalid instance id' });
      const huge = await call('POST', path(stack.edge.instanceId), MORTY, { command: 'discovery', pad: 'x'.repeat(4096) });
      expect(huge).toEqual({ status: 413, body: { code: 'payload_too_large', message: 'the request body is too large' } });
    });
  });

  /** The primary edge's registration as the relay lists it now. */
  async function registrationOfEdge(): Promise<RegistrationView> {
    const body = (await listRegistrations(stack.relayUrl, stack.demo)).body as { result: RegistrationView[] };
    return body.result.find((r) => r.id === stack.edge.instanceId)!;
  }

  describe('console API connections and the Discovery API key', () => {
    it("lists the connections and never the key, which only the tenant's admins and owners can rotate", async () => {
      const listed = await call('GET', `${demo()}/connections`, BETH);
      expect(listed.status).toBe(200);
      const body = listed.body as { connections: { connection_id: string }[]; discovery_api_key: unknown };
      expect(body.connections.map((c) => c.connection_id)).toContain(stack.demo.connectionId);
      // Each says what it serves: the seed labelled the demo's connections.
      expect(body.connections).toContainEqual({ connection_id: stack.demo.connectionId, policy_name: 'rbac', label: 'sidecar' });
      expect(JSON.stringify(body)).not.toContain(stack.demo.discoveryApiKey);
      expect(await call('POST', `${demo()}/discovery-key/rotate`, BETH)).toEqual(forbidden('admin', 'viewer'));
      expect((await listRegistrations(stack.relayUrl, stack.demo)).status).toBe(200); // the key still works
    });

    it('rotates the key for an admin: the new key is shown once and works at the relay, the old one stops', async () => {
      // An organization of its own, so the demo tenant's key stays as the other tests know it.
      const acme = (await createTenant(stack.store, { name: 'acme', directory: { roles: [], users: [], resources: [] }, owner: SUMMER.id })).tenantId;
      await stack.store.members.setMember(acme, MORTY.id, 'admin');
      const mine = acme;
      // It documents no body: one sent (JSON or anything else) is refused and rotates nothing.
      expect(await call('POST', `/tenants/${mine}/discovery-key/rotate`, MORTY, { keep_old: true })).toEqual({
        status: 400,
        body: { code: 'bad_request', message: 'this route takes no body' },
      });
      const plain = await fetch(`${stack.relayUrl}/console/api/tenants/${mine}/discovery-key/rotate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[MORTY.email]}`, 'content-type': 'text/plain' },
        body: 'rotate please',
      });
      expect(plain.status).toBe(400);
      expect((await stack.store.audit.list(mine)).map((e) => e.action)).not.toContain('discovery_key.rotate');
      const rotated = await call('POST', `/tenants/${mine}/discovery-key/rotate`, MORTY);
      expect(rotated.status).toBe(200);
      const key = (rotated.body as { discovery_api_key: string }).discovery_api_key;
      expect(key).toMatch(/^dk_/);
      const tenant = { ...stack.demo, tenantId: mine, discoveryApiKey: key };
      expect(await listRegistrations(stack.relayUrl, tenant)).toMatchObject({ status: 200, body: { result: [] } });
      const again = await call('POST', `/tenants/${mine}/discovery-key/rotate`, SUMMER); // the owner may too
      expect((again.body as { discovery_api_key: string }).discovery_api_key).not.toBe(key);
      expect((await listRegistrations(stack.relayUrl, tenant)).status).toBe(401);
    });
  });

  describe('console API members and audit', () => {
    it('lets admins manage admins and viewers but never the owner role', async () => {
      const summer = `${demo()}/members/${SUMMER.id}`;
      const ownerOnly = { status: 403, body: { code: 'forbidden', message: 'only owners grant, change or remove the owner role' } };
      expect(await call('PUT', summer, MORTY, { role: 'viewer' })).toEqual({ status: 200, body: { user_id: SUMMER.id, role: 'viewer' } });
      expect(await call('PUT', summer, MORTY, { role: 'owner' })).toEqual(ownerOnly);
      expect(await call('PUT', `${demo()}/members/${RICK.id}`, MORTY, { role: 'viewer' })).toEqual(ownerOnly);
      expect(await call('DELETE', `${demo()}/members/${RICK.id}`, MORTY)).toEqual(ownerOnly);
      expect(await call('DELETE', summer, MORTY)).toEqual({ status: 204, body: '' });
      expect(await stack.store.members.role(stack.demo.tenantId, RICK.id)).toBe('owner');
    });

    it("lets owners manage every member, viewers none, and keeps an organization's last owner", async () => {
      const summer = `${demo()}/members/${SUMMER.id}`;
      expect(await call('DELETE', `${demo()}/members/${BETH.id}`, BETH)).toEqual(forbidden('admin', 'viewer'));
      expect(await call('PUT', summer, RICK, { role: 'viewer' })).toEqual({ status: 200, body: { user_id: SUMMER.id, role: 'viewer' } });
      expect((await call('GET', `${demo()}/audit`, SUMMER)).status).toBe(200); // a member now
      expect(await call('PUT', summer, RICK, { role: 'boss' })).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      expect(await call('DELETE', summer, RICK)).toEqual({ status: 204, body: '' });
      expect(await call('DELETE', summer, RICK)).toEqual({ status: 404, body: { code: 'member_not_found', message: 'no such member' } });
      expect(await call('PUT', `${demo()}/members/${RICK.id}`, RICK, { role: 'admin' })).toEqual({
        status: 409,
        body: { code: 'last_owner', message: 'an organization keeps at least one owner' },
      });
      // Both changes are in the log, newest first; the refused ones are not.
      const log = (await call('GET', `${demo()}/audit`, BETH)).body as { entries: unknown[] };
      expect(log.entries.slice(0, 2)).toEqual([
        { ...byRick, action: 'member.remove', ...SUMMER_TARGET },
        { ...byRick, action: 'member.set.viewer', ...SUMMER_TARGET },
      ]);
      const mine = await personalOf(BETH);
      expect(await call('PUT', `/tenants/${mine}/members/${RICK.id}`, BETH, { role: 'viewer' })).toEqual({
        status: 409,
        body: { code: 'personal_account', message: 'a personal account has exactly one member, its owner' },
      });
    });

    it('writes every change to the audit log (who, what, when), newest first, for every member to read', async () => {
      const mine = await personalOf(MORTY);
      await call('POST', `/tenants/${mine}/discovery-key/rotate`, MORTY);
      await call('POST', `/tenants/${mine}/authorizers/gone/commands`, MORTY, { command: 'discovery' });
      await call('PUT', `/tenants/${mine}/members/${RICK.id}`, MORTY, { role: 'viewer' }); // refused: not written
      const log = await call('GET', `/tenants/${mine}/audit`, MORTY);
      expect(log).toEqual({
        status: 200,
        body: {
          entries: [
            { ...byMortyUnnamed, action: 'command.discovery', target: 'gone', target_name: null, target_email: null, outcome: 'instance_not_found' },
            { ...byMortyUnnamed, action: 'discovery_key.rotate', target: null, target_name: null, target_email: null, outcome: 'ok' },
          ],
        },
      });
      const [newest, older] = (log.body as { entries: { id: number; at: string }[] }).entries;
      expect(Date.now() - Date.parse(newest!.at)).toBeLessThan(60_000);
      expect(await call('GET', `/tenants/${mine}/audit?before=${newest!.id}`, MORTY)).toMatchObject({ body: { entries: [{ id: older!.id }] } });
      expect((await call('GET', `/tenants/${mine}/audit?before=x`, MORTY)).status).toBe(400);
      expect(await call('GET', `/tenants/${mine}/audit`, RICK)).toEqual(notFound);
    });

    it("shows the admin API's changes (and so the CLI's) in the log as the admin key's, naming the user", async () => {
      expect((await admin(stack.relayUrl, stack.demo, 'PUT', `/api/v2/admin/directory/users/${SUMMER.email}/roles/editor`)).status).toBe(200);
      expect((await admin(stack.relayUrl, stack.demo, 'DELETE', `/api/v2/admin/directory/users/${SUMMER.id}/roles/editor`)).status).toBe(200);
      const log = (await call('GET', `${demo()}/audit`, BETH)).body as { entries: unknown[] };
      const byAdminKey = { id: expect.any(Number), actor: 'admin_key', actor_kind: 'admin_key', actor_name: null, actor_email: null, at: expect.any(String) };
      expect(log.entries.slice(0, 2)).toEqual([
        { ...byAdminKey, action: 'directory.role.revoke.editor', ...SUMMER_TARGET },
        { ...byAdminKey, action: 'directory.role.grant.editor', ...SUMMER_TARGET },
      ]);
      // The key's own tenant only: Summer's personal account saw nothing of it.
      const mine = await personalOf(SUMMER);
      expect(((await call('GET', `/tenants/${mine}/audit`, SUMMER)).body as { entries: unknown[] }).entries).toEqual([]);
      // What npm run tenants writes (it goes to the database, not through an API) is the CLI's.
      await recordCliAudit(stack.store.audit, stack.demo.tenantId, 'member.set.viewer', SUMMER.id);
      const [cli] = ((await call('GET', `${demo()}/audit`, BETH)).body as { entries: unknown[] }).entries;
      expect(cli).toEqual({ id: expect.any(Number), actor: 'tenants_cli', actor_kind: 'cli', actor_name: null, actor_email: null, at: expect.any(String), action: 'member.set.viewer', ...SUMMER_TARGET });
    });

    it('records commands sent through the console in the organization log', async () => {
      await call('POST', `${demo()}/authorizers/${stack.edge.instanceId}/commands`, RICK, { command: 'discovery' });
      const log = (await call('GET', `${demo()}/audit`, BETH)).body as { entries: { actor: string; action: string; target: string; outcome: string }[] };
      expect(log.entries[0]).toMatchObject({ actor: RICK.id, actor_name: 'Rick Sanchez', action: 'command.discovery', target: stack.edge.instanceId, target_name: null, outcome: 'ok' });
    });
  });

  describe('console API directory', () => {
    it('shows every member the directory with its revision, as the admin API holds it', async () => {
      const listed = await call('GET', `${demo()}/directory`, BETH);
      expect(listed.status).toBe(200);
      const central = await admin(stack.relayUrl, stack.demo, 'GET', '/api/v2/admin/directory');
      expect(listed.body).toEqual(central.body);
      expect(listed.body).toMatchObject({
        revision: expect.any(Number),
        roles: expect.arrayContaining([{ id: 'admin', includes: ['editor'] }]),
        users: expect.arrayContaining([{ id: BETH.id, email: BETH.email, name: 'Beth Smith', roles: ['viewer'], identities: ['CiRmZDM2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs'] }]),
        resources: expect.arrayContaining([{ id: 'mega-seed', relations: { owner: [RICK.id], writer: [MORTY.id], reader: [SUMMER.id, BETH.id] } }]),
      });
      expect(await call('GET', `/tenants/${await personalOf(BETH)}/directory`, RICK)).toEqual(notFound);
    });

    it('grants and revokes a role for admins and owners through the change log (next revision, audited); viewers get 403', async () => {
      const role = `${demo()}/directory/users/${BETH.id}/roles/editor`;
      const before = (await stack.store.directory.revision(stack.demo.tenantId))!;
      expect(await call('PUT', role, BETH)).toEqual(forbidden('admin', 'viewer'));
      expect(await call('DELETE', role, BETH)).toEqual(forbidden('admin', 'viewer'));
      expect(await stack.store.directory.revision(stack.demo.tenantId)).toBe(before);

      expect(await call('PUT', role, MORTY)).toEqual({ status: 200, body: { revision: before + 1 } });
      // The edges see it as any admin API change: the next entry of the change log.
      expect(await stack.store.directory.changesSince(stack.demo.tenantId, before)).toEqual({
        kind: 'changes',
        revision: before + 1,
        changes: [{ op: 'role.grant', user_id: BETH.id, role: 'editor', rev: before + 1 }],
      });
      // By e-mail as the admin API takes it; the owner may too.
      expect(await call('DELETE', `${demo()}/directory/users/${BETH.email}/roles/editor`, RICK)).toEqual({ status: 200, body: { revision: before + 2 } });
      const beth = ((await call('GET', `${demo()}/directory`, BETH)).body as { users: { id: string; roles: string[] }[] }).users.find((u) => u.id === BETH.id);
      expect(beth?.roles).toEqual(['viewer']);

      const log = (await call('GET', `${demo()}/audit`, BETH)).body as { entries: unknown[] };
      expect(log.entries.slice(0, 2)).toEqual([
        { ...byRick, action: 'directory.role.revoke.editor', target: BETH.id, target_name: 'Beth Smith', target_email: BETH.email, outcome: 'ok' },
        { ...byMorty, action: 'directory.role.grant.editor', target: BETH.id, target_name: 'Beth Smith', target_email: BETH.email, outcome: 'ok' },
      ]);
    });

    it('refuses an unknown role or user, and another tenant, writing nothing', async () => {
      const before = (await stack.store.directory.revision(stack.demo.tenantId))!;
      const newest = ((await call('GET', `${demo()}/audit`, BETH)).body as { entries: { id: number }[] }).entries[0]!.id;
      expect(await call('PUT', `${demo()}/directory/users/${BETH.id}/roles/overlord`, RICK)).toEqual({
        status: 400,
        body: { code: 'unknown_role', message: 'unknown role overlord' },
      });
      expect(await call('PUT', `${demo()}/directory/users/nobody/roles/editor`, RICK)).toEqual({
        status: 404,
        body: { code: 'unknown_user', message: 'unknown user nobody' },
      });
      expect((await call('PUT', `${demo()}/directory/users/${BETH.id}/roles/Bad-Role`, RICK)).status).toBe(400);
      // Summer is no member of the demo organization; Rick is none of Beth's personal account.
      expect(await call('PUT', `${demo()}/directory/users/${BETH.id}/roles/editor`, SUMMER)).toEqual(notFound);
      expect(await call('DELETE', `/tenants/${await personalOf(BETH)}/directory/users/${BETH.id}/roles/viewer`, RICK)).toEqual(notFound);
      expect(await stack.store.directory.revision(stack.demo.tenantId)).toBe(before);
      expect(((await call('GET', `${demo()}/audit`, BETH)).body as { entries: { id: number }[] }).entries[0]!.id).toBe(newest);
    });
  });

  describe('console API policies', () => {
    it('lists every policy with its latest digest, the images of one, and the files of each image (read-only, for every member)', async () => {
      const seeded = (await stack.store.images.taggedDigest(stack.demo.tenantId, 'rbac'))!;
      const listed = await call('GET', `${demo()}/policies`, BETH);
      expect(listed).toEqual({ status: 200, body: { policies: expect.arrayContaining([{ name: 'rbac', digest: seeded, signed: false }]) } });

      const rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
      const files = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// console test: a new version\n` };
      expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files })).status).toBe(201);
      const pushed = createPolicyImage('rbac', files).digest;

      const versions = await call('GET', `${demo()}/policies/rbac`, BETH);
      expect(versions.status).toBe(200);
      // The admin API's listing, newest first.
      expect(versions.body).toEqual((await admin(stack.relayUrl, stack.demo, 'GET', '/api/v2/admin/policies/rbac')).body);
      expect(versions.body).toMatchObject({
        name: 'rbac',
        latest: pushed,
        images: [
          { digest: pushed, signed: false, signed_version: null },
          { digest: seeded, signed: false, signed_version: null },
        ],
      });
      expect((await call('GET', `${demo()}/policies`, BETH)).body).toMatchObject({ policies: expect.arrayContaining([{ name: 'rbac', digest: pushed, signed: false }]) });

      expect(await call('GET', `${demo()}/policies/rbac/images/${seeded}`, BETH)).toEqual({ status: 200, body: { name: 'rbac', digest: seeded, files: rbac.files } });
      expect((await call('GET', `${demo()}/policies/rbac/images/${pushed}`, BETH)).body).toMatchObject({ files: { 'rbac.cedar': files['rbac.cedar'] } });
    });

    it('says which images are signed, and which version the signature signed', async () => {
      const { privateJwk, publicJwk } = await newSigningKey();
      expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/signing-keys', { jwk: publicJwk })).status).toBe(201);
      const rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
      const signed = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// console test: signed\n` });
      const signature = await signPolicyImage({ name: 'rbac', digest: signed.digest, version: 3 }, privateJwk);
      expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files: signed.files, signature })).status).toBe(201);
      // Later pushes of the other tests stay unsigned: the key goes again.
      expect((await admin(stack.relayUrl, stack.demo, 'DELETE', `/api/v2/admin/signing-keys/${await signingKeyId(publicJwk)}`)).status).toBe(204);

      expect((await call('GET', `${demo()}/policies`, BETH)).body).toMatchObject({ policies: expect.arrayContaining([{ name: 'rbac', digest: signed.digest, signed: true }]) });
      const images = ((await call('GET', `${demo()}/policies/rbac`, BETH)).body as { images: { digest: string; signed: boolean }[] }).images;
      expect(images[0]).toEqual({ digest: signed.digest, created_at: expect.any(String), signed: true, signed_version: 3 });
      expect(images.slice(1).every((i) => !i.signed)).toBe(true);
    });

    it('answers 404 for an unknown policy or image and for another tenant, 400 for a malformed name or digest', async () => {
      const seeded = (await stack.store.images.versions(stack.demo.tenantId, 'rbac')).at(-1)!.digest;
      expect(await call('GET', `${demo()}/policies/nope`, BETH)).toEqual({ status: 404, body: { code: 'unknown_policy', message: 'no policy named nope' } });
      const missing = `sha256:${'0'.repeat(64)}`;
      expect(await call('GET', `${demo()}/policies/rbac/images/${missing}`, BETH)).toEqual({
        status: 404,
        body: { code: 'unknown_image', message: `no image ${missing} of policy rbac` },
      });
      // An image is found under its own name only.
      expect((await call('GET', `${demo()}/policies/todo/images/${seeded}`, BETH)).status).toBe(404);
      expect((await call('GET', `${demo()}/policies/rbac/images/sha256:XYZ`, BETH)).body).toEqual({ code: 'bad_request', message: 'invalid digest' });
      expect((await call('GET', `${demo()}/policies/Bad%20Name`, BETH)).status).toBe(400);
      const bethsOwn = await personalOf(BETH);
      expect(await call('GET', `/tenants/${bethsOwn}/policies`, RICK)).toEqual(notFound);
      expect(await call('GET', `${demo()}/policies/rbac/images/${seeded}`, SUMMER)).toEqual(notFound);
      expect(await call('GET', `/tenants/${bethsOwn}/policies`, BETH)).toEqual({ status: 200, body: { policies: expect.any(Array) } });
    });
  });

  describe('console API connections: create', () => {
    it('creates a connection for an admin: the secret is shown once, connects a real edge, and only its id is audited', async () => {
      const created = await call('POST', `${demo()}/connections`, MORTY, { policy_name: 'rbac', label: '  billing sidecar ' });
      expect(created).toEqual({ status: 201, body: { connection_id: expect.any(String), policy_name: 'rbac', label: 'billing sidecar', connection_secret: expect.stringMatching(/^cs_/) } });
      const { connection_id: connectionId, connection_secret: connectionSecret } = created.body as { connection_id: string; connection_secret: string };
      const listed = (await call('GET', `${demo()}/connections`, BETH)).body as { connections: { connection_id: string }[] };
      expect(listed.connections).toContainEqual({ connection_id: connectionId, policy_name: 'rbac', label: 'billing sidecar' });
      const unlabelled = (await call('POST', `${demo()}/connections`, MORTY, { policy_name: 'rbac' })).body as { connection_id: string; label: unknown };
      expect(unlabelled.label).toBeNull();
      const longest = await call('POST', `${demo()}/connections`, MORTY, { policy_name: 'rbac', label: 'x'.repeat(64) }); // the bound itself
      expect(longest).toMatchObject({ status: 201, body: { label: 'x'.repeat(64) } });
      expect(JSON.stringify(listed)).not.toContain(connectionSecret);

      const edge = await stack.startEdge({ connectionId, connectionSecret });
      // The edge's synced status reaches the relay in a frame of its own, after the sync: wait for it.
      const info = await waitFor('the new edge\'s status at the relay', async () => {
        const registered = (await listRegistrations(stack.relayUrl, stack.demo)).body as { result: RegistrationView[] };
        const own = registered.result.find((r) => r.id === edge.instanceId)?.info;
        return own?.policy_name ? own : undefined;
      });
      expect(info).toMatchObject({ connection_id: connectionId, connected: true, policy_name: 'rbac' });

      const log = (await call('GET', `${demo()}/audit`, BETH)).body as { entries: unknown[] };
      expect(log.entries[2]).toEqual({ ...byMorty, action: 'connection.create', target: connectionId, target_name: 'billing sidecar', target_email: null, outcome: 'ok' });
      expect(log.entries[1]).toMatchObject({ action: 'connection.create', target: unlabelled.connection_id, target_name: null });
      expect(JSON.stringify(await stack.store.audit.list(stack.demo.tenantId))).not.toContain(connectionSecret);
    });

    it('refuses a viewer (403), another tenant (404), an unknown or malformed policy, a bad label, writing nothing', async () => {
      const count = async () => (await stack.store.tenants.get(stack.demo.tenantId))!.connections.length;
      const before = await count();
      expect(await call('POST', `${demo()}/connections`, BETH, { policy_name: 'rbac' })).toEqual(forbidden('admin', 'viewer'));
      expect(await call('POST', `${demo()}/connections`, SUMMER, { policy_name: 'rbac' })).toEqual(notFound);
      expect(await call('POST', `${demo()}/connections`, RICK, { policy_name: 'nope' })).toEqual({
        status: 404,
        body: { code: 'unknown_policy', message: 'no policy named nope: push it first' },
      });
      expect((await call('POST', `${demo()}/connections`, RICK, { policy_name: 'Bad Name' })).status).toBe(400);
      expect((await call('POST', `${demo()}/connections`, RICK, {})).status).toBe(400);
      for (const label of ['x'.repeat(65), '   ', 'tab\there']) {
        const refused = await call('POST', `${demo()}/connections`, RICK, { policy_name: 'rbac', label });
        expect(refused).toEqual({ status: 400, body: { code: 'bad_request', message: expect.stringMatching(/^invalid request body: label: /) } });
      }
      expect(await count()).toBe(before);
    });

    it('stops at 100 connections per tenant (409)', async () => {
      const acme = (await createTenant(stack.store, { name: 'acme-connections', directory: { roles: [], users: [], resources: [] }, owner: RICK.id })).tenantId;
      const rbac = (await stack.store.images.tagged(stack.demo.tenantId, 'rbac'))!.image;
      await stack.store.images.push(acme, rbac);
      for (let i = 0; i < 100; i++) await stack.store.tenants.addConnection(acme, 'rbac');
      expect(await call('POST', `/tenants/${acme}/connections`, RICK, { policy_name: 'rbac' })).toEqual({
        status: 409,
        body: { code: 'too_many_connections', message: 'this tenant already has 100 connections' },
      });
    });
  });

  it('exec through the relay keeps working with the demo key alongside the console', async () => {
    expect((await exec(stack.relayUrl, stack.demo, stack.edge.instanceId, 'discovery')).status).toBe(200);
  });
});
