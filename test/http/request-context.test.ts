/**
 * The request log line is written without the logger's redaction, so it must never hold
 * anything that could carry a credential: exactly its five fields, the path without the
 * query string. The app's other lines keep the redaction.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createApp, finishApp } from '../../src/http';

function redactingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info', redact: { paths: ['token', '*.token'], remove: true } }, sink), lines };
}

const PINO_FIELDS = ['hostname', 'level', 'msg', 'pid', 'time'];

describe('the request log line', () => {
  it('has exactly req_id, method, path, status and ms: no header, no query string, no body', async () => {
    const { logger, lines } = redactingLogger();
    const app = createApp(logger);
    app.post('/things/:id', (_req, res) => void res.status(201).send('made'));
    const res = await request(finishApp(app, logger, 'api'))
      .post('/things/42?access_token=query-secret')
      .set('Authorization', 'Bearer header-secret')
      .set('Cookie', 'session=cookie-secret')
      .send({ token: 'body-secret' });
    expect(res.status).toBe(201);
    const line = lines.find((l) => l.msg === 'request');
    expect(Object.keys(line ?? {}).sort()).toEqual([...PINO_FIELDS, 'method', 'ms', 'path', 'req_id', 'status'].sort());
    expect(line).toMatchObject({ req_id: res.headers['x-request-id'], method: 'POST', path: '/things/42', status: 201 });
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it('leaves the app’s other lines redacted by its logger', async () => {
    const { logger, lines } = redactingLogger();
    const app = createApp(logger);
    app.get('/', (req, res) => {
      logger.info({ req_id: req.id, token: 'a-token', nested: { token: 'b-token' } }, 'handled');
      res.send('ok');
    });
    await request(finishApp(app, logger, 'api')).get('/').expect(200);
    const handled = lines.find((l) => l.msg === 'handled');
    expect(handled).toMatchObject({ nested: {} });
    expect(JSON.stringify(lines)).not.toContain('-token');
    expect(lines.map((l) => l.msg)).toEqual(['handled', 'request']);
  });
});
