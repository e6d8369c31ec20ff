import request from 'supertest';
import { createApp, finishApp } from '../../src/http';
import { SqlConnectionError, storageErrorTranslator } from '../../src/sql';
import { capturingLogger } from '../helpers/capturing-logger';
import { sqliteFull } from '../helpers/sqlite-full';

// The statuses, codes, headers, bodies and log lines the error middleware gave storage failures
// when src/http still knew src/sql; the translator keeps every one of them.
describe('storageErrorTranslator: storage failures at the error middleware', () => {
  /** An error shaped like node-postgres's: a SQLSTATE code and a message that must stay in-house. */
  function pgError(code: string): Error {
    return Object.assign(new Error('terminating connection due to administrator command password=hunter2'), { code, severity: 'FATAL' });
  }

  function build(shape: 'api' | 'oauth', err: Error) {
    const { logger, lines } = capturingLogger();
    const app = createApp(logger);
    app.get('/store', () => {
      throw err;
    });
    return { app: finishApp(app, logger, shape, [storageErrorTranslator]), lines };
  }

  it('answers a PostgreSQL shutdown (57P01) with 503 storage_unavailable, Retry-After and only the code in the log', async () => {
    const { app, lines } = build('api', pgError('57P01'));
    const res = await request(app).get('/store');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ code: 'storage_unavailable', message: 'storage is busy or unavailable; retry shortly' });
    const logged = lines.find((l) => l.msg === 'storage error');
    expect(logged).toEqual(expect.objectContaining({ level: 50, kind: 'storage_unavailable 57P01', req_id: res.headers['x-request-id'], err_code: '57P01' }));
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('answers a lost connection in the OAuth shape at the IdP', async () => {
    const res = await request(build('oauth', new SqlConnectionError('lost')).app).get('/store');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'storage is busy or unavailable; retry shortly' });
  });


  it.each([
    ['SQLite (SQLITE_FULL)', sqliteFull],
    ['PostgreSQL (53100 disk_full)', () => pgError('53100')],
  ])('answers a full disk in %s with 507 insufficient_storage and no Retry-After: retrying soon will not help', async (_engine, fail) => {
    const err = fail();
    const { app, lines } = build('api', err);
    const res = await request(app).get('/store');
    expect(res.status).toBe(507);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body).toEqual({ code: 'insufficient_storage', message: 'storage is full' });
    expect(lines.find((l) => l.msg === 'storage error')).toEqual(expect.objectContaining({ req_id: res.headers['x-request-id'], err_code: (err as Error & { code: string }).code }));
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('answers a full disk in the OAuth shape at the IdP', async () => {
    const res = await request(build('oauth', pgError('53100')).app).get('/store');
    expect(res.status).toBe(507);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body).toEqual({ error: 'server_error', error_description: 'storage is full' });
  });

  it('keeps a statement error (unique violation, 23505) a 500: it is a bug, not an outage', async () => {
    const res = await request(build('api', pgError('23505')).app).get('/store');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'server_error', message: 'internal error' });
  });
});
