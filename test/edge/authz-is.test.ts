import { pino } from 'pino';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { createTestIssuer, type TestIssuer } from '../helpers/tokens';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let issuer: TestIssuer;
let dir: string;
let edge: Edge;
let rick: string;
let jerry: string;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  issuer = await createTestIssuer();
  dir = tempDir();
  ({ edge } = makeEdge(cp.url, dir, { jwt: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience } }));
  await edge.runCommand('discovery');
  await edge.runCommand('sync_edge_directory');
  rick = userId(cp.directory, 'rick');
  jerry = userId(cp.directory, 'jerry');
});

afterAll(async () => {
  await edge.close();
  await issuer.close();
  await cp.close();
  removeDir(dir);
});

function isBody(type: string, identity: string | undefined, method = 'DELETE', extra: Record<string, unknown> = {}) {
  return {
    identity_context: { type, ...(identity === undefined ? {} : { identity }) },
    policy_context: { path: `rbac.${method}`, decisions: ['allowed'] },
    resource_context: { type: 'Resource', id: 'mega-seed' },
    ...extra,
  };
}

const post = (body: unknown) => request(edge.app).post('/api/v2/authz/is').send(body as object);
const yes = { decisions: [{ decision: 'allowed', is: true }] };
const no = { decisions: [{ decision: 'allowed', is: false }] };

describe('POST /api/v2/authz/is', () => {
  it('answers for a SUB identity (user id, or e-mail) and the short alias', async () => {
    await post(isBody('IDENTITY_TYPE_SUB', rick)).expect(200, yes);
    await post(isBody('IDENTITY_TYPE_SUB', jerry)).expect(200, no);
    await post(isBody('IDENTITY_TYPE_SUB', jerry, 'GET')).expect(200, yes);
    await post(isBody('SUB', 'rick@the-citadel.com')).expect(200, yes);
    await post(isBody('SUB', 'nobody-in-the-directory')).expect(200, no);
  });

  it('verifies a JWT identity against the JWKS and uses its sub', async () => {
    await post(isBody('IDENTITY_TYPE_JWT', issuer.sign({ sub: rick }))).expect(200, yes);
    await post(isBody('JWT', issuer.sign({ sub: jerry }))).expect(200, no);
  });

  it.each([
    ['expired', () => issuer.sign({ sub: rick, exp: issuer.nowSeconds() - 60 })],
    ['wrong audience', () => issuer.sign({ sub: rick, aud: 'outpost-demo-client' })],
    ['an ID token (typ JWT)', () => issuer.sign({ sub: rick }, { typ: 'JWT' })],
    ['wrong issuer', () => issuer.sign({ sub: rick, iss: 'https://evil.example' })],
    ['no sub', () => issuer.sign({ sub: undefined })],
    ['not a JWT', () => 'garbage'],
  ])('refuses a JWT identity that is %s with 400 invalid_identity', async (_name, token) => {
    await post(isBody('IDENTITY_TYPE_JWT', token())).expect(400, {
      code: 'invalid_identity',
      message: 'the identity is not a valid access token',
    });
  });

  it('answers 503 when the JWKS is unreachable (our fault, never an allow)', async () => {
    const down = await createTestIssuer({ key: issuer.key });
    down.failWith(503);
    const other = tempDir();
    const { edge: e } = makeEdge(cp.url, other, { jwt: { issuer: down.issuer, jwksUri: down.jwksUri, audience: down.audience } });
    await e.runCommand('discovery');
    await e.runCommand('sync_edge_directory');
    await request(e.app)
      .post('/api/v2/authz/is')
      .send(isBody('JWT', down.sign({ sub: rick })))
      .expect(503, { code: 'jwks_unavailable', message: 'the identity provider keys are unavailable' });
    await e.close();
    await down.close();
    removeDir(other);
  });

  it('never allows an anonymous (NONE) identity', async () => {
    await post(isBody('IDENTITY_TYPE_NONE', undefined, 'GET')).expect(200, no);
    await post(isBody('NONE', undefined, 'GET')).expect(200, no);
  });

  it('decides a nested attribute the policy does not read as if it were not there (test/edge/authz-is-topaz.test.ts: one it reads)', async () => {
    const nested = (id: string) => isBody('SUB', jerry, 'DELETE', { resource_context: { type: 'Resource', id: 'mega-seed', owner: { id, tags: ['a'] }, note: null } });
    await post(nested(jerry)).expect(200, no);
    await post(isBody('SUB', rick, 'DELETE', { resource_context: { type: 'Resource', id: 'mega-seed', owner: { id: rick } } })).expect(200, yes);
  });

  it('answers each requested decision, in order', async () => {
    const body = isBody('SUB', rick, 'GET', {
      policy_context: { path: 'rbac.GET', decisions: ['allowed', 'allowed'] },
      resource_context: { type: 'Resource', id: 'portal-gun' },
    });
    await post(body).expect(200, { decisions: [yes.decisions[0], yes.decisions[0]] });
  });

  it.each([
    ['no body', undefined, 'bad_request'],
    ['an unknown identity type', isBody('IDENTITY_TYPE_MAGIC', rick), 'bad_request'],
    ['a path without an action', isBody('SUB', rick, '', { policy_context: { path: 'rbac', decisions: ['allowed'] } }), 'bad_request'],
    ['no decisions', isBody('SUB', rick, 'GET', { policy_context: { path: 'rbac.GET', decisions: [] } }), 'bad_request'],
    ['no resource id', isBody('SUB', rick, 'GET', { resource_context: { type: 'Resource' } }), 'bad_request'],
    ['a flat attribute over 512 characters', isBody('SUB', rick, 'GET', { resource_context: { type: 'Resource', id: 'x', owner: 'a'.repeat(513) } }), 'bad_request'],
    ['SUB without identity', isBody('SUB', undefined), 'invalid_identity'],
    ['an unknown decision', isBody('SUB', rick, 'GET', { policy_context: { path: 'rbac.GET', decisions: ['visible'] } }), 'unknown_decision'],
    ['another policy name', isBody('SUB', rick, 'GET', { policy_context: { path: 'todo.GET', decisions: ['allowed'] } }), 'unknown_policy'],
  ])('answers 400 for %s', async (_name, body, code) => {
    const res = await post(body).expect(400).expect('content-type', /json/);
    expect(res.body).toEqual({ code, message: expect.any(String) });
  });

  it('answers 415 for a body that is not JSON, and echoes a safe request id', async () => {
    const res = await request(edge.app).post('/api/v2/authz/is').set('content-type', 'text/plain').set('x-request-id', 'trace-42').send('rick may delete?');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ code: 'unsupported_media_type', message: 'send the body as application/json (UTF-8)' });
    expect(res.headers['x-request-id']).toBe('trace-42');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 413 from content-length alone, before reading a byte of the body', async () => {
    const { port, close: stop } = await new Promise<{ port: number; close(): void }>((resolve) => {
      const server = createServer(edge.app).listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, close: () => server.close() }));
    });
    try {
      const socket = connect(port, '127.0.0.1');
      socket.write('POST /api/v2/authz/is HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10000000\r\n\r\n{');
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413/);
      expect(answer).toContain('"code":"payload_too_large"');
    } finally {
      stop();
    }
  });

  it('answers 400 for malformed JSON and 413 for an oversized body', async () => {
    await request(edge.app).post('/api/v2/authz/is').set('content-type', 'application/json').send('{"identity_context":')
      .expect(400, { code: 'bad_request', message: 'the request body is not valid JSON' });
    const big = isBody('SUB', rick, 'GET', { resource_context: { type: 'Resource', id: 'x', note: 'a'.repeat(20_000) } });
    await post(big).expect(413, { code: 'payload_too_large', message: 'the request body is too large' });
  });

  it('answers 503 not_ready before a policy image and a directory are loaded', async () => {
    const other = tempDir();
    const { edge: e } = makeEdge(cp.url, other);
    await request(e.app).post('/api/v2/authz/is').send(isBody('SUB', rick))
      .expect(503, { code: 'not_ready', message: 'no policy image or directory loaded yet' });
    await e.close();
    removeDir(other);
  });

  it('writes one decision log line per decision, without the token', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const other = tempDir();
    const { edge: e } = makeEdge(cp.url, other, { logger, jwt: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience } });
    await e.runCommand('discovery');
    await e.runCommand('sync_edge_directory');
    const token = issuer.sign({ sub: rick });
    await request(e.app).post('/api/v2/authz/is').send(isBody('JWT', token)).expect(200, yes);
    const decisions = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'decision');
    expect(decisions).toEqual([
      expect.objectContaining({
        principal: rick,
        identity_type: 'IDENTITY_TYPE_JWT',
        path: 'rbac.DELETE',
        resource: { type: 'Resource', id: 'mega-seed' },
        decision: true,
        policy_digest: e.status().policy_digest,
        directory_revision: 1,
      }),
    ]);
    expect(lines.join('\n')).not.toContain(token.split('.')[2]);
    await e.close();
    removeDir(other);
  });

  it('answers JSON 404 for unknown routes', async () => {
    await request(edge.app).get('/api/v2/nothing').expect(404, { code: 'not_found', message: 'no route for GET /api/v2/nothing' });
  });
});
