import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizerUnavailableError, createEdgeAuthorizer, toIsRequest, type AuthorizationRequest } from '../../src/authorizer';
import { InvalidPropertyError } from '../../src/decision';
import type { Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import { makeSyncedEdge, removeDir, tempDir } from '../edge/edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from '../edge/fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let server: Server;
let url: string;
let connections = 0;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir));
  server = await listen(edge.app, 0, '127.0.0.1');
  server.on('connection', () => (connections += 1));
  url = baseUrl(server);
});

afterAll(async () => {
  await close(server);
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const deleteRequest = (principal: string, name = 'mega-seed'): AuthorizationRequest => ({
  principal,
  action: 'DELETE',
  resource: { type: 'Resource', id: name },
  policyPath: 'rbac.DELETE',
});

/** A server that answers every request with `status` and `body`, or never answers. */
async function stubServer(handler: (res: import('node:http').ServerResponse) => void): Promise<{ url: string; stop(): Promise<void> }> {
  const stub = createServer((_req, res) => handler(res));
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
    async stop() {
      stub.closeAllConnections();
      await new Promise<void>((resolve) => stub.close(() => resolve()));
    },
  };
}

describe('createEdgeAuthorizer', () => {
  it('builds the Topaz request: SUB identity, the policy path, type and id over attributes', () => {
    const req = { ...deleteRequest('u1'), resource: { type: 'Todo', id: 't1', attributes: { owner: 'u2', id: 'spoof' } } };
    expect(toIsRequest(req)).toEqual({
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: 'u1' },
      policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
      resource_context: { owner: 'u2', type: 'Todo', id: 't1' },
    });
  });

  it('allows and denies as the edge decides, over one kept-alive connection', async () => {
    const authorizer = createEdgeAuthorizer({ url });
    const before = connections;
    await expect(authorizer.authorize(deleteRequest(userId(cp.directory, 'rick')))).resolves.toEqual({ allowed: true, policyPath: 'rbac.DELETE' });
    await expect(authorizer.authorize(deleteRequest(userId(cp.directory, 'morty')))).resolves.toEqual({ allowed: false, policyPath: 'rbac.DELETE' });
    await expect(authorizer.authorize(deleteRequest(userId(cp.directory, 'beth')))).resolves.toMatchObject({ allowed: false });
    expect(connections - before).toBe(1);
    expect(authorizer.kind).toBe('edge');
    await authorizer.close();
  });

  it('fails closed when the edge is down', async () => {
    const down = await stubServer(() => undefined);
    await down.stop();
    const authorizer = createEdgeAuthorizer({ url: down.url });
    const attempt = authorizer.authorize(deleteRequest('u1'));
    await expect(attempt).rejects.toBeInstanceOf(AuthorizerUnavailableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly', detail: 'edge authorizer unreachable (ECONNREFUSED)' });
    await authorizer.close();
  });

  it('fails closed on a non-200 answer (e.g. the edge not ready) and on an unexpected body', async () => {
    const notReady = await stubServer((res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"not_ready"}'));
    const odd = await stubServer((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"decisions":[{"is":"yes"}]}'));
    const a = createEdgeAuthorizer({ url: notReady.url });
    const b = createEdgeAuthorizer({ url: odd.url });
    await expect(a.authorize(deleteRequest('u1'))).rejects.toMatchObject({ status: 503, message: 'the authorizer is unavailable; try again shortly', detail: 'edge authorizer answered 503' });
    await expect(b.authorize(deleteRequest('u1'))).rejects.toMatchObject({ status: 503, message: 'the authorizer is unavailable; try again shortly', detail: 'edge authorizer sent an unexpected body' });
    await Promise.all([a.close(), b.close(), notReady.stop(), odd.stop()]);
  });

  it("passes the edge's 400 invalid_property on as that 400 (the request's mistake); any other 400 fails closed", async () => {
    const message = 'resource property "ownerID" must be a string (an entity id), not 5';
    const invalid = await stubServer((res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'invalid_property', message })));
    const other = await stubServer((res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"unknown_policy","message":"x"}'));
    const a = createEdgeAuthorizer({ url: invalid.url });
    const b = createEdgeAuthorizer({ url: other.url });
    const refusal = a.authorize(deleteRequest('u1'));
    await expect(refusal).rejects.toBeInstanceOf(InvalidPropertyError);
    await expect(refusal).rejects.toMatchObject({ status: 400, code: 'invalid_property', message });
    await expect(b.authorize(deleteRequest('u1'))).rejects.toMatchObject({ status: 503, code: 'authorizer_unavailable', detail: 'edge authorizer answered 400' });
    await Promise.all([a.close(), b.close(), invalid.stop(), other.stop()]);
  });

  it('fails closed when the edge does not answer within the timeout', async () => {
    const silent = await stubServer(() => undefined);
    const authorizer = createEdgeAuthorizer({ url: silent.url, timeoutMs: 50 });
    await expect(authorizer.authorize(deleteRequest('u1'))).rejects.toMatchObject({
      status: 503,
      message: 'the authorizer is unavailable; try again shortly',
      detail: 'edge authorizer unreachable (ABORT_ERR)',
    });
    await authorizer.close();
    await silent.stop();
  });

  it('refuses a non-http URL at start-up', () => {
    expect(() => createEdgeAuthorizer({ url: 'ftp://127.0.0.1' })).toThrow('edge URL must be http(s)');
  });
});
