import Database from 'better-sqlite3';
import request from 'supertest';
import { controlPlaneDbPath, SERVER_BUSY_TIMEOUT_MS } from '../../src/control-plane';
import { adminHeaders, makeFixture, type Fixture } from './fixture';

/**
 * Another process (the tenants CLI, a backup) holding the write lock: the server waits at
 * most its short busy timeout on the event loop, then answers 503 with Retry-After and a
 * generic message; nothing is half-written, and the write succeeds once the lock is gone.
 */
describe('control plane with a write-locked database', () => {
  let fx: Fixture;
  let locker: Database.Database;
  beforeEach(async () => {
    fx = await makeFixture({ busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
    locker = new Database(controlPlaneDbPath(fx.dir));
  });
  afterEach(async () => {
    if (locker.inTransaction) locker.exec('ROLLBACK');
    locker.close();
    fx.close();
  });

  it('answers a directory write with 503 storage_unavailable and Retry-After, then succeeds once unlocked', async () => {
    const headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
    const path = '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin';
    const before = (await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision;
    locker.exec('BEGIN IMMEDIATE');
    const res = await request(fx.app).put(path).set(headers);
    // Answered while the lock is still held: the server gave up on its own busy timeout
    // (control-plane-store.test.ts reads SERVER_BUSY_TIMEOUT_MS back from such a handle).
    expect(locker.inTransaction).toBe(true);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ code: 'storage_unavailable', message: 'storage is busy or unavailable; retry shortly' });
    expect(JSON.stringify(res.body)).not.toMatch(/SQLITE/);
    locker.exec('ROLLBACK');
    expect((await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision).toBe(before);
    const retried = await request(fx.app).put(path).set(headers);
    expect(retried.status).toBe(200);
  });
});
