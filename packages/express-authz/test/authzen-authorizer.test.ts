import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizerUnavailableError, createAuthzenAuthorizer, type AuthorizationRequest } from '../src';

/** A PDP on 127.0.0.1 whose answer the test sets; it keeps what it was sent. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const received: { body: unknown; requestId: string | undefined }[] = [];
let pdp: Server;
let url: string;

beforeAll(async () => {
  pdp = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received.push({ body: JSON.parse(text), requestId: req.headers['x-request-id'] as string | undefined });
      answer(req, res);
    });
  });
  pdp.listen(0, '127.0.0.1');
  await once(pdp, 'listening');
  url = `http://127.0.0.1:${(pdp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  pdp.closeAllConnections();
  pdp.close();
  await once(pdp, 'close');
});

const question: AuthorizationRequest = {
  principal: 'user-1',
  action: 'update',
  resource: { type: 'todo', id: 't1', attributes: { ownerID: 'user-2' } },
  policyPath: 'todo.update',
  requestId: 'req-1',
};
const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('createAuthzenAuthorizer', () => {
  it('sends the AuthZEN 1.0 evaluation body and the request id, and allows only decision: true', async () => {
    const authorizer = createAuthzenAuthorizer({ url, subjectProperties: () => ({ roles: ['editor'] }) });
    answer = json(200, { decision: true });
    expect(await authorizer.authorize(question)).toEqual({ allowed: true, policyPath: 'todo.update' });
    expect(received.at(-1)).toEqual({
      body: {
        subject: { type: 'user', id: 'user-1', properties: { roles: ['editor'] } },
        action: { name: 'update' },
        resource: { type: 'todo', id: 't1', properties: { ownerID: 'user-2' } },
      },
      requestId: 'req-1',
    });
    answer = json(200, { decision: false, context: { reason: 'not the owner' } });
    expect((await authorizer.authorize(question)).allowed).toBe(false);
  });

  it.each([
    ['a 500', json(500, { decision: true })],
    ['a string decision', json(200, { decision: 'true' })],
    ['no decision', json(200, {})],
    ['a body that is not JSON', (_req: IncomingMessage, res: ServerResponse) => res.end('<html>')],
    ['an oversized body', (_req: IncomingMessage, res: ServerResponse) => res.end(`{"decision":true,"pad":"${'x'.repeat(70_000)}"}`)],
  ])('fails closed (503) on %s, never an allow', async (_what, reply) => {
    answer = reply;
    await expect(createAuthzenAuthorizer({ url }).authorize(question)).rejects.toBeInstanceOf(AuthorizerUnavailableError);
  });

  it('fails closed when the PDP does not answer within the deadline, or is not there', async () => {
    answer = () => undefined; // holds the request until the authorizer gives up
    await expect(createAuthzenAuthorizer({ url, timeoutMs: 50 }).authorize(question)).rejects.toThrow(AuthorizerUnavailableError);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    closed.close();
    await once(closed, 'close');
    await expect(createAuthzenAuthorizer({ url: gone }).authorize(question)).rejects.toMatchObject({ status: 503, detail: 'AuthZEN PDP unreachable (ECONNREFUSED)' });
  });

  it('refuses a URL that is not http(s) at creation', () => {
    expect(() => createAuthzenAuthorizer({ url: 'file:///etc/passwd' })).toThrow(TypeError);
  });
});
