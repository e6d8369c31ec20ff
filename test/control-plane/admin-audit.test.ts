// Every change made through the admin API (and so by `npm run policy` and `npm run directory`,
// which call it) lands in the tenant's audit log as the admin key's, in the same transaction as
// the change: directory writes, accepted pushes, signing keys added and removed. Refusals and
// reads write nothing, and another tenant's log never sees them.
import { join } from 'node:path';
import request from 'supertest';
import { createPolicyImage, readPolicyFolder, signPolicyImage, signingKeyId } from '../../src/policy';
import { ADMIN_KEY_ACTOR } from '../../src/control-plane/audit-repository';
import { newSigningKey } from '../helpers/signing';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { MORTY, adminHeaders, makeFixture, policiesDir, type Fixture } from './fixture';

describe.each(SQL_ENGINES)('admin API changes in the audit log on $name', (engine) => {
  let fx: Fixture;
  let headers: Record<string, string>;
  beforeEach(async () => {
    fx = await makeFixture({}, engine);
    headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  });
  afterEach(() => fx.close());

  /** The demo tenant's log, oldest first, as [action, target] of admin-key entries (any other entry fails). */
  const log = async (tenantId = fx.demo.tenant_id) =>
    (await fx.store.audit.list(tenantId)).reverse().map((e) => {
      expect({ actor: e.actor, actorKind: e.actorKind, outcome: e.outcome }).toEqual({ actor: ADMIN_KEY_ACTOR, actorKind: 'admin_key', outcome: 'ok' });
      return [e.action, e.target];
    });
  const send = (method: 'put' | 'delete' | 'post' | 'get', path: string, body?: object) => {
    const req = request(fx.app)[method](path).set(headers);
    return body === undefined ? req : req.send(body);
  };

  it('writes each directory change, naming the user and (for a relation) the resource', async () => {
    const dir = '/api/v2/admin/directory';
    expect((await send('put', `${dir}/users/u-new`, { email: 'new@x.test', name: 'New', roles: ['viewer'] })).status).toBe(200);
    expect((await send('put', `${dir}/users/morty@the-citadel.com/roles/admin`)).status).toBe(200);
    expect((await send('delete', `${dir}/users/${MORTY}/roles/admin`)).status).toBe(200);
    expect((await send('put', `${dir}/resources/doc-1/relations/owner/new@x.test`)).status).toBe(200);
    expect((await send('delete', `${dir}/resources/doc-1/relations/owner/u-new`)).status).toBe(200);
    expect((await send('delete', `${dir}/users/u-new`)).status).toBe(200);
    // Refused: nothing changed, nothing written. A read writes nothing either.
    expect((await send('put', `${dir}/users/${MORTY}/roles/emperor`)).status).toBe(400);
    expect((await send('delete', `${dir}/users/nobody`)).status).toBe(404);
    expect((await send('get', dir)).status).toBe(200);
    expect(await log()).toEqual([
      ['directory.user.put', 'u-new'],
      ['directory.role.grant.admin', MORTY],
      ['directory.role.revoke.admin', MORTY],
      ['directory.relation.add.owner.doc-1', 'u-new'],
      ['directory.relation.remove.owner.doc-1', 'u-new'],
      ['directory.user.delete', 'u-new'],
    ]);
    expect(await fx.store.audit.list(fx.other.tenantId)).toEqual([]);
  });

  it('writes each accepted push (signed ones as such) and each signing key added or removed, never a refusal', async () => {
    const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
    const changed = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` });
    const push = (body: object) => send('post', '/api/v2/admin/policies/rbac', body);
    expect((await push({ files: changed.files })).status).toBe(201);
    expect((await push({ files: { ...rbac.files, 'rbac.cedar': 'permit (' } })).status).toBe(400);

    const { privateJwk, publicJwk } = await newSigningKey();
    const kid = await signingKeyId(publicJwk);
    expect((await send('post', '/api/v2/admin/signing-keys', { jwk: publicJwk })).status).toBe(201);
    expect((await send('post', '/api/v2/admin/signing-keys', { jwk: publicJwk })).status).toBe(200); // already there: no change
    expect((await push({ files: rbac.files })).status).toBe(400); // unsigned, now that the tenant has a key
    const signature = await signPolicyImage({ name: 'rbac', digest: rbac.digest, version: 1 }, privateJwk);
    expect((await push({ files: rbac.files, signature })).status).toBe(200); // stored at seed: latest moves back to it
    expect((await push({ files: rbac.files, signature })).status).toBe(409); // stale version
    expect((await send('delete', `/api/v2/admin/signing-keys/${kid}`)).status).toBe(204);
    expect((await send('delete', `/api/v2/admin/signing-keys/${kid}`)).status).toBe(404);
    expect(await log()).toEqual([
      ['policy.push', `rbac@${changed.digest}`],
      ['signing_key.add', kid],
      ['policy.push.signed', `rbac@${rbac.digest}`],
      ['signing_key.remove', kid],
    ]);
  });

  it("writes a change to the key's own tenant only", async () => {
    const other = adminHeaders(fx.other.tenantId, fx.other.adminApiKey);
    const { publicJwk } = await newSigningKey();
    expect((await request(fx.app).post('/api/v2/admin/signing-keys').set(other).send({ jwk: publicJwk })).status).toBe(201);
    expect(await log(fx.other.tenantId)).toEqual([['signing_key.add', await signingKeyId(publicJwk)]]);
    expect(await fx.store.audit.list(fx.demo.tenant_id)).toEqual([]);
  });
});
