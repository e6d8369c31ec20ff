import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { close, createApp, finishApp, formBody, jsonBody, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { startTestIdp, type TestIdp } from '../helpers/idp';

const LIMIT = 1024;

const portOf = (server: Server): number => (server.address() as { port: number }).port;

function build(shape: 'api' | 'oauth') {
  const app = createApp(silentLogger());
  app.post('/json', jsonBody(LIMIT), (req, res) => {
    res.json({ got: req.body });
  });
  app.post('/form', formBody(LIMIT), (req, res) => {
    res.json({ got: req.body });
  });
  return finishApp(app, silentLogger(), shape);
}

/**
 * Sends a request head declaring `declared` body bytes, then only a few of them, and resolves
 * with what the server answered and whether it closed the connection. A server that waited
 * for the declared body would answer only at its request timeout (30 s, `listen`), and then
 * `408`: the head the tests expect is what says it answered at once, not a time bound.
 */
function lyingContentLength(port: number, path: string, declared: number, type = 'application/json'): Promise<{ head: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve({ head: answer.split('\r\n\r\n')[0] ?? '', closed: true }));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\nContent-Length: ${declared}\r\n\r\n{"a":`);
  });
}

describe('request bodies: bounded before reading, never inflated', () => {
  let server: Server;

  beforeAll(async () => {
    server = await listen(build('api'), 0, '127.0.0.1');
  });

  afterAll(async () => {
    await close(server);
  });

  it('refuses a Content-Length over the limit at once, before the body arrives, and closes the connection', async () => {
    const { head, closed } = await lyingContentLength(portOf(server), '/json', 100 * 1024 * 1024);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toMatch(/\r\nconnection: close/i);
    expect(closed).toBe(true);
  });

  it('answers the same 413 for the form parser', async () => {
    const { head } = await lyingContentLength(portOf(server), '/form', LIMIT + 1);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('still reads a body within the limit', async () => {
    await request(server).post('/json').send({ a: 1 }).expect(200, { got: { a: 1 } });
    await request(server).post('/form').type('form').send('a=1').expect(200, { got: { a: '1' } });
  });

  it('refuses compressed bodies with 415 — junk that does not inflate and a real gzip stream alike', async () => {
    const junk = await request(server).post('/json').set('content-type', 'application/json').set('content-encoding', 'gzip').send('not compressed');
    expect(junk.status).toBe(415);
    expect(junk.body).toEqual({ code: 'unsupported_media_type', message: 'unsupported body encoding' });
    for (const encoding of ['deflate', 'br']) {
      const res = await request(server).post('/form').set('content-type', 'application/x-www-form-urlencoded').set('content-encoding', encoding).send('a=1');
      expect(res.status).toBe(415);
    }
    const real = await request(server).post('/json').set('content-type', 'application/json').set('content-encoding', 'gzip').send(gzipSync('{"a":1}'));
    expect(real.status).toBe(415);
  });

  it('answers in the OAuth shape at the IdP (RFC 6749 §5.2 has no size or encoding error: invalid_request)', async () => {
    const app = build('oauth');
    const big = await request(app).post('/json').set('content-type', 'application/json').set('content-length', String(LIMIT + 1)).send('x'.repeat(LIMIT + 1));
    expect(big.status).toBe(400);
    expect(big.body).toEqual({ error: 'invalid_request', error_description: 'the request body is too large' });
    const gz = await request(app).post('/json').set('content-type', 'application/json').set('content-encoding', 'gzip').send('junk');
    expect(gz.status).toBe(415);
    expect(gz.body.error).toBe('invalid_request');
  });
});

describe('every route that reads a body goes through jsonBody() or formBody()', () => {
  const src = join(__dirname, '..', '..', 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

  it('no source file calls express.json or express.urlencoded itself', () => {
    const direct = files(src).filter((f) => !f.endsWith('read-body.ts') && /express\.(json|urlencoded|raw|text)\(/.test(readFileSync(f, 'utf8')));
    expect(direct).toEqual([]);
  });

  describe('the IdP token endpoint, which needs no credentials', () => {
    let idp: TestIdp;
    beforeAll(async () => {
      idp = await startTestIdp();
    });
    afterAll(async () => {
      await idp.close();
    });

    it('refuses a compressed body with 415 invalid_request, JSON and form alike (it answered 500)', async () => {
      for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
        const res = await request(idp.url).post('/api/v1/idp/token').set('content-type', type).set('content-encoding', 'gzip').send('not compressed');
        expect(res.status).toBe(415);
        expect(res.body.error).toBe('invalid_request');
      }
    });

    it('answers an oversized Content-Length at once (it waited for the declared 100 MB until the request timeout)', async () => {
      const { head } = await lyingContentLength(Number(new URL(idp.url).port), '/api/v1/idp/token', 100 * 1024 * 1024);
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
    });

    it.each(['/api/v1/idp/token', '/revoke'])('answers an oversized form for the provider at %s at once, uncached, and closes the connection', async (path) => {
      const { head, closed } = await lyingContentLength(Number(new URL(idp.url).port), path, 100 * 1024 * 1024, 'application/x-www-form-urlencoded');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/\r\ncache-control: no-store/i);
      expect(head).toMatch(/\r\nconnection: close/i);
      expect(closed).toBe(true);
    });
  });
});
