// oidc-provider's storage in SQL, on both engines: per-row expiry, atomic consume, grant
// revocation across models, secondary lookups, the sweep, and a real Provider writing to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Provider } from 'oidc-provider';
import type { ControlPlaneLocation } from '../../src/control-plane';
import { MAX_PAYLOAD_BYTES, openOidcStorage, type OidcStorage, type OidcStorageOptions } from '../../src/idp/oidc-storage';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';

const T0 = 1_700_000_000_000;

/** The storage options naming the same database as a control-plane location. */
const optionsAt = (at: ControlPlaneLocation): OidcStorageOptions => (typeof at === 'string' ? { sqliteFile: at } : { databaseUrl: at.databaseUrl });

describe.each(SQL_ENGINES)('oidc storage on $name', (engine) => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  let storage: OidcStorage;
  const open = async (extra: { sweepIntervalMs?: number } = {}) => openOidcStorage({ ...optionsAt(await engine.location(dir)), ...extra }, now);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-oidc-storage-'));
    clock = T0;
    storage = await open();
  });
  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives back what was stored, and nothing for an unknown id', async () => {
    const tokens = storage.adapter('AccessToken');
    const payload = { jti: 'at-1', kind: 'AccessToken', clientId: 'c', scope: 'openid', extra: { nested: [1, 'two'] }, grantId: 'g1' };
    await tokens.upsert('at-1', payload, 3600);
    expect(await tokens.find('at-1')).toEqual(payload);
    expect(await tokens.find('at-2')).toBeUndefined();
  });

  it('hides a row from every lookup once its own expiry has passed; a row without one never expires', async () => {
    await storage.adapter('Session').upsert('s-1', { uid: 'u-1' }, 60);
    await storage.adapter('DeviceCode').upsert('d-1', { userCode: 'ABCD-EFGH' }, 30);
    await storage.adapter('Client').upsert('c-1', { client_id: 'c-1' }, undefined);
    clock = T0 + 30_000 - 1;
    expect(await storage.adapter('DeviceCode').findByUserCode('ABCD-EFGH')).toBeDefined();
    clock = T0 + 30_000;
    expect(await storage.adapter('DeviceCode').find('d-1')).toBeUndefined();
    expect(await storage.adapter('DeviceCode').findByUserCode('ABCD-EFGH')).toBeUndefined();
    expect(await storage.adapter('Session').findByUid('u-1')).toEqual({ uid: 'u-1' });
    clock = T0 + 60_000;
    expect(await storage.adapter('Session').find('s-1')).toBeUndefined();
    expect(await storage.adapter('Session').findByUid('u-1')).toBeUndefined();
    clock = T0 + 10 * 365 * 86_400_000;
    expect(await storage.adapter('Client').find('c-1')).toEqual({ client_id: 'c-1' });
  });

  it('consume marks the token used, in epoch seconds, and only that token', async () => {
    const codes = storage.adapter('AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'g1' }, 60);
    await codes.upsert('code-2', { grantId: 'g1' }, 60);
    clock = T0 + 1_500;
    await codes.consume('code-1');
    expect(await codes.find('code-1')).toEqual({ grantId: 'g1', consumed: Math.floor((T0 + 1_500) / 1000) });
    expect(await codes.find('code-2')).toEqual({ grantId: 'g1' });
  });

  it('consumes once: a second consume (a reuse that passed the provider\'s check) revokes the grant and is refused', async () => {
    const tokens = storage.adapter('RefreshToken');
    await tokens.upsert('rt-1', { grantId: 'g1' }, 60);
    await tokens.upsert('rt-2', { grantId: 'g1' }, 60);
    await storage.adapter('Grant').upsert('g1', { accountId: 'u' }, 60);
    await tokens.upsert('rt-other', { grantId: 'g2' }, 60);
    await tokens.consume('rt-1');
    await expect(tokens.consume('rt-1')).rejects.toMatchObject({ error: 'invalid_grant', statusCode: 400 });
    expect(await tokens.find('rt-2')).toBeUndefined();
    expect(await storage.adapter('Grant').find('g1')).toBeUndefined();
    expect(await tokens.find('rt-other')).toEqual({ grantId: 'g2' });
  });

  it('destroy removes one row', async () => {
    const tokens = storage.adapter('RefreshToken');
    await tokens.upsert('rt-1', { grantId: 'g1' }, 60);
    await tokens.upsert('rt-2', { grantId: 'g1' }, 60);
    await tokens.destroy('rt-1');
    expect(await tokens.find('rt-1')).toBeUndefined();
    expect(await tokens.find('rt-2')).toBeDefined();
  });

  it('revokeByGrantId removes every token of the grant, whatever its model, and no other grant’s', async () => {
    for (const [model, grantId] of [['AccessToken', 'g1'], ['RefreshToken', 'g1'], ['AuthorizationCode', 'g1'], ['AccessToken', 'g2'], ['RefreshToken', 'g2']] as const) {
      await storage.adapter(model).upsert(`${model}-${grantId}`, { grantId }, 60);
    }
    await storage.adapter('AccessToken').revokeByGrantId('g1');
    for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) expect(await storage.adapter(model).find(`${model}-g1`)).toBeUndefined();
    expect(await storage.adapter('AccessToken').find('AccessToken-g2')).toEqual({ grantId: 'g2' });
    expect(await storage.adapter('RefreshToken').find('RefreshToken-g2')).toEqual({ grantId: 'g2' });
  });

  it('findByUid finds a session by its uid, within its own model only', async () => {
    await storage.adapter('Session').upsert('cookie-1', { uid: 'uid-1', accountId: 'rick' }, 60);
    await storage.adapter('Session').upsert('cookie-2', { uid: 'uid-2', accountId: 'morty' }, 60);
    await storage.adapter('Interaction').upsert('i-1', { uid: 'uid-3' }, 60);
    expect(await storage.adapter('Session').findByUid('uid-2')).toEqual({ uid: 'uid-2', accountId: 'morty' });
    expect(await storage.adapter('Session').findByUid('uid-3')).toBeUndefined();
    expect(await storage.adapter('Session').findByUid('cookie-1')).toBeUndefined();
  });

  it('findByUserCode finds a device code by its user code', async () => {
    const codes = storage.adapter('DeviceCode');
    await codes.upsert('dc-1', { userCode: 'WDJB-MJHT', clientId: 'tv' }, 600);
    await codes.upsert('dc-2', { userCode: 'BCDF-GHJK', clientId: 'tv' }, 600);
    expect(await codes.findByUserCode('BCDF-GHJK')).toEqual({ userCode: 'BCDF-GHJK', clientId: 'tv' });
    expect(await codes.findByUserCode('XXXX-XXXX')).toBeUndefined();
  });

  it('upsert replaces the payload, and the lookups follow the new one', async () => {
    const codes = storage.adapter('DeviceCode');
    await codes.upsert('dc-1', { userCode: 'OLD', grantId: 'g-old' }, 60);
    await codes.consume('dc-1');
    await codes.upsert('dc-1', { userCode: 'NEW', grantId: 'g-new', accountId: 'rick' }, 600);
    expect(await codes.find('dc-1')).toEqual({ userCode: 'NEW', grantId: 'g-new', accountId: 'rick' });
    expect(await codes.findByUserCode('OLD')).toBeUndefined();
    expect(await codes.findByUserCode('NEW')).toBeDefined();
    await codes.revokeByGrantId('g-old');
    expect(await codes.find('dc-1')).toBeDefined();
    clock = T0 + 300_000; // past the first expiry, within the second
    expect(await codes.find('dc-1')).toBeDefined();
    await codes.revokeByGrantId('g-new');
    expect(await codes.find('dc-1')).toBeUndefined();
  });

  it('sweep deletes only the expired rows and says how many', async () => {
    const tokens = storage.adapter('AccessToken');
    await tokens.upsert('short-1', {}, 10);
    await tokens.upsert('short-2', {}, 20);
    await tokens.upsert('long', {}, 60);
    await tokens.upsert('forever', {}, undefined);
    clock = T0 + 20_000;
    expect(await storage.sweep()).toBe(2);
    expect(await storage.sweep()).toBe(0);
    clock = T0; // back before any expiry: a row the sweep left would be visible again
    expect(await tokens.find('short-1')).toBeUndefined();
    expect(await tokens.find('short-2')).toBeUndefined();
    expect(await tokens.find('long')).toBeDefined();
    expect(await tokens.find('forever')).toBeDefined();
  });

  it('sweeps on its own every sweepIntervalMs', async () => {
    await storage.close();
    storage = await open({ sweepIntervalMs: 20 });
    await storage.adapter('AccessToken').upsert('short', {}, 1);
    clock = T0 + 1_000;
    const at = await engine.location(dir);
    const db = await openLocation(at);
    try {
      const count = async () => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM idp_oidc_payloads'))!.n;
      const deadline = Date.now() + 5_000;
      while ((await count()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it(`refuses a payload over ${MAX_PAYLOAD_BYTES} bytes of JSON and stores nothing`, async () => {
    const sessions = storage.adapter('Session');
    const padding = (bytes: number) => ({ x: 'a'.repeat(bytes - JSON.stringify({ x: '' }).length) });
    await sessions.upsert('at-limit', padding(MAX_PAYLOAD_BYTES), 60);
    expect(await sessions.find('at-limit')).toEqual(padding(MAX_PAYLOAD_BYTES));
    await expect(sessions.upsert('over', padding(MAX_PAYLOAD_BYTES + 1), 60)).rejects.toThrow(/over the 65536-byte limit/);
    expect(await sessions.find('over')).toBeUndefined();
  });

  it('keeps the rows when the storage is closed and opened again (a restart)', async () => {
    await storage.adapter('RefreshToken').upsert('rt-1', { grantId: 'g1' }, 3600);
    await storage.adapter('RefreshToken').consume('rt-1');
    await storage.close();
    storage = await open();
    expect(await storage.adapter('RefreshToken').find('rt-1')).toEqual({ grantId: 'g1', consumed: T0 / 1000 });
  });

  it('keeps two models’ rows with the same id apart', async () => {
    await storage.adapter('AccessToken').upsert('same', { kind: 'AccessToken' }, 60);
    await storage.adapter('RefreshToken').upsert('same', { kind: 'RefreshToken' }, 60);
    expect(await storage.adapter('AccessToken').find('same')).toEqual({ kind: 'AccessToken' });
    await storage.adapter('RefreshToken').consume('same');
    await storage.adapter('AccessToken').destroy('same');
    expect(await storage.adapter('AccessToken').find('same')).toBeUndefined();
    expect(await storage.adapter('RefreshToken').find('same')).toEqual({ kind: 'RefreshToken', consumed: T0 / 1000 });
  });

  it('creates the schema of a new database once when several processes open it at once', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'outpost-oidc-storage-'));
    try {
      const location = optionsAt(await engine.location(fresh));
      const opened = await Promise.allSettled(Array.from({ length: 8 }, () => openOidcStorage(location, now)));
      await Promise.all(opened.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
      expect(opened.filter((result) => result.status === 'rejected')).toEqual([]);
      const db = await openLocation(await engine.location(fresh));
      try {
        expect(await db.all('SELECT version FROM idp_oidc_schema')).toEqual([{ version: 1 }]);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a database of a newer schema', async () => {
    const db = await openLocation(await engine.location(dir));
    try {
      await db.run('UPDATE idp_oidc_schema SET version = 2');
    } finally {
      await db.close();
    }
    await expect(open()).rejects.toThrow(/schema version 2, newer than this build \(1\)/);
  });

  it('is where oidc-provider keeps a client-credentials token', async () => {
    const provider = new Provider('http://localhost', {
      adapter: storage.adapter,
      clients: [{ client_id: 'm', client_secret: 's', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
      features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
      ttl: { ClientCredentials: 600 },
    });
    const server: Server = createServer(provider.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('m:s').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { access_token: string; token_type: string };
      expect(body.token_type).toBe('Bearer');
      const db = await openLocation(await engine.location(dir));
      try {
        const rows = await db.all<{ model: string; id: string; payload: string; expires_at: number }>('SELECT model, id, payload, expires_at FROM idp_oidc_payloads');
        expect(rows.map((row) => [row.model, row.id, row.expires_at])).toEqual([['ClientCredentials', body.access_token, T0 + 600_000]]);
        expect(JSON.parse(rows[0]!.payload)).toMatchObject({ kind: 'ClientCredentials', clientId: 'm', jti: body.access_token });
      } finally {
        await db.close();
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
