import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { AuthorizerUnavailableError, type AuthorizationRequest, type Authorizer } from '../../src/authorizer';
import { BadRequestError, createApp, createErrorHandler, notFound } from '../../src/http';
import { requireAccessToken, requirePermission } from '@outpost/express-authz';
import { ForbiddenError } from '@outpost/express-authz';
import { createTestIssuer, type TestIssuer } from '../helpers/tokens';

// The permission step of the sample apps fails closed: whatever goes wrong while deciding
// is a 503 with Retry-After, never a 500 and never an allow, and is logged once per kind
// per minute by the app's error handler.

const UNAVAILABLE = { code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly' };

let idp: TestIssuer;
let token: string;

beforeAll(async () => {
  idp = await createTestIssuer();
  token = idp.sign({ sub: 'rick' });
});
afterAll(() => idp.close());

/** An authorizer answering with `decide`, which may also throw or reject. */
function authorizerOf(decide: (request: AuthorizationRequest) => Promise<{ allowed: boolean }>): Authorizer {
  return {
    kind: 'local',
    authorize: async (request) => ({ ...(await decide(request)), policyPath: request.policyPath }),
    close: async () => undefined,
  };
}

/** `GET /resource/:name` behind the real bearer middleware and requirePermission; the log in an array on a stepped clock. */
function build(authorizer: Authorizer, resource: (req: Request) => AuthorizationRequest['resource'] = (req) => ({ type: 'Resource', id: String(req.params.name) })) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const clock = { now: 1_000_000 };
  const app: Express = createApp(logger);
  const auth = requireAccessToken({ issuer: idp.issuer, audience: idp.audience, clientId: idp.clientId, jwksUri: idp.jwksUri, realm: 'test-api' });
  app.get('/resource/:name', auth, requirePermission(authorizer, { policy: 'rbac', action: 'GET', resource }, { forwardErrors: true }), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(notFound('api'));
  app.use(createErrorHandler(logger, 'api', { now: () => clock.now }));
  const get = () => request(app).get('/resource/mega-seed').set('Authorization', `Bearer ${token}`);
  return { get, lines, clock, errors: () => lines.filter((l) => (l.level as number) >= 50) };
}

async function expectUnavailable(res: request.Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.body).toEqual(UNAVAILABLE);
}

describe('requirePermission', () => {
  it('lets an allowed request through and answers 403 to a denied one', async () => {
    await build(authorizerOf(async () => ({ allowed: true }))).get().expect(200, { ok: true });
    await build(authorizerOf(async () => ({ allowed: false }))).get().expect(403, { code: 'forbidden', message: 'Forbidden by policy rbac.GET' });
    // Anything but a literal true is a deny, however truthy.
    for (const truthy of ['yes', 1, {}]) {
      await build(authorizerOf(async () => ({ allowed: truthy as unknown as boolean }))).get().expect(403);
    }
  });

  it('answers a deny itself, never through the error middleware, with the error middleware’s exact answer', async () => {
    const seen: unknown[] = [];
    const app: Express = createApp(pino({ level: 'silent' }));
    const auth = requireAccessToken({ issuer: idp.issuer, audience: idp.audience, clientId: idp.clientId, jwksUri: idp.jwksUri, realm: 'test-api' });
    app.get('/resource/:name', auth, requirePermission(authorizerOf(async () => ({ allowed: false })), { policy: 'rbac', action: 'GET', resource: (req) => ({ type: 'Resource', id: String(req.params.name) }) }, { forwardErrors: true }), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(((err, _req, _res, next) => {
      seen.push(err);
      next(err);
    }) as ErrorRequestHandler);
    app.use(createErrorHandler(pino({ level: 'silent' }), 'api'));
    const denied = await request(app).get('/resource/mega-seed').set('Authorization', `Bearer ${token}`);
    expect(seen).toEqual([]);
    expect(denied.status).toBe(403);
    expect(denied.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(denied.headers['www-authenticate']).toBeUndefined();
    expect(denied.text).toBe('{"code":"forbidden","message":"Forbidden by policy rbac.GET"}');
    // The same error thrown to the error middleware gets the same answer, byte for byte.
    const thrown = express();
    thrown.get('/x', () => {
      throw new ForbiddenError('rbac.GET');
    });
    thrown.use(createErrorHandler(pino({ level: 'silent' }), 'api'));
    const viaHandler = await request(thrown).get('/x');
    expect([viaHandler.status, viaHandler.headers['content-type'], viaHandler.text]).toEqual([denied.status, denied.headers['content-type'], denied.text]);
  });

  it('answers 503, not 500, when the route’s resource callback throws, and logs the exception with its stack', async () => {
    const allow = jest.fn(async () => ({ allowed: true }));
    const { get, errors } = build(authorizerOf(allow), () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    });
    const res = await get();
    await expectUnavailable(res);
    expect(res.text).not.toContain('reading');
    expect(allow).not.toHaveBeenCalled();
    expect(errors()).toEqual([
      expect.objectContaining({
        req_id: res.headers['x-request-id'],
        kind: 'authorizer_unavailable TypeError',
        detail: 'TypeError while deciding rbac.GET',
        err: expect.objectContaining({ stack: expect.stringContaining("TypeError: Cannot read properties of undefined (reading 'id')") }),
      }),
    ]);
    expect(JSON.stringify(errors())).not.toContain(token);
  });

  it('answers 503 when the authorizer rejects with a non-Error or throws one synchronously', async () => {
    await expectUnavailable(await build(authorizerOf(() => Promise.reject('edge said no'))).get());
    const throwing: Authorizer = {
      kind: 'edge',
      authorize: () => {
        throw undefined;
      },
      close: async () => undefined,
    };
    await expectUnavailable(await build(throwing).get());
  });

  it('keeps the authorizer’s own 503, with Retry-After and its detail in the log', async () => {
    const { get, lines } = build(authorizerOf(() => Promise.reject(new AuthorizerUnavailableError('edge authorizer unreachable (ECONNREFUSED)'))));
    await expectUnavailable(await get());
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, kind: 'authorizer_unavailable AuthorizerUnavailableError', detail: 'edge authorizer unreachable (ECONNREFUSED)' }));
  });

  it('keeps a client error a resource callback raised', async () => {
    const { get } = build(authorizerOf(async () => ({ allowed: true })), () => {
      throw new BadRequestError('no such resource name');
    });
    await get().expect(400, { code: 'bad_request', message: 'no such resource name' });
  });

  it('logs a flood of one failure once a minute and then says how many it suppressed', async () => {
    const { get, errors, clock } = build(authorizerOf(() => Promise.reject(new RangeError('decision cache corrupted'))));
    for (let i = 0; i < 6; i += 1) {
      await expectUnavailable(await get());
      clock.now += 5_000;
    }
    expect(errors()).toHaveLength(1);
    clock.now += 61_000;
    await expectUnavailable(await get());
    expect(errors().map((l) => [l.kind, l.suppressed])).toEqual([
      ['authorizer_unavailable RangeError', 0],
      ['authorizer_unavailable RangeError', 5],
    ]);
  });
});

/** An in-process authorizer: `authorizeNow` answers in the request's tick; `authorize` must not be asked. */
function authorizerNowOf(decide: (request: AuthorizationRequest) => { allowed: boolean }): Authorizer {
  return {
    kind: 'embedded',
    authorize: () => Promise.reject(new Error('authorize asked where authorizeNow answers')),
    authorizeNow: (request) => ({ ...decide(request), policyPath: request.policyPath }),
    close: async () => undefined,
  };
}

describe('requirePermission with an authorizer that decides synchronously (authorizeNow)', () => {
  it('lets an allowed request through, answers 403 to a denied one and to anything but a literal true', async () => {
    const asked: AuthorizationRequest[] = [];
    await build(authorizerNowOf((r) => (asked.push(r), { allowed: true }))).get().expect(200, { ok: true });
    expect(asked).toEqual([expect.objectContaining({ principal: 'rick', action: 'GET', resource: { type: 'Resource', id: 'mega-seed' }, policyPath: 'rbac.GET' })]);
    await build(authorizerNowOf(() => ({ allowed: false }))).get().expect(403, { code: 'forbidden', message: 'Forbidden by policy rbac.GET' });
    for (const truthy of ['yes', 1, {}]) {
      await build(authorizerNowOf(() => ({ allowed: truthy as unknown as boolean }))).get().expect(403);
    }
  });

  it('answers a deny with the same bytes as the awaited path', async () => {
    const now = await build(authorizerNowOf(() => ({ allowed: false }))).get();
    const awaited = await build(authorizerOf(async () => ({ allowed: false }))).get();
    const strip = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'date' && k !== 'x-request-id'));
    expect([now.status, strip(now.headers), now.text]).toEqual([awaited.status, strip(awaited.headers), awaited.text]);
  });

  it('fails closed: a throw (any value) is 503, the authorizer’s own 503 is kept, a resource callback’s 400 is kept', async () => {
    await expectUnavailable(await build(authorizerNowOf(() => { throw undefined; })).get());
    await expectUnavailable(await build(authorizerNowOf(() => { throw new TypeError('no image'); })).get());
    const { get, lines } = build(authorizerNowOf(() => { throw new AuthorizerUnavailableError('the embedded edge holds policy todo, not rbac'); }));
    await expectUnavailable(await get());
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, kind: 'authorizer_unavailable AuthorizerUnavailableError', detail: 'the embedded edge holds policy todo, not rbac' }));
    const allow = jest.fn(() => ({ allowed: true }));
    await build(authorizerNowOf(allow), () => {
      throw new BadRequestError('no such resource name');
    }).get().expect(400, { code: 'bad_request', message: 'no such resource name' });
    expect(allow).not.toHaveBeenCalled();
  });

  it('answers 503 on a route that forgot the authentication middleware', async () => {
    const app: Express = createApp(pino({ level: 'silent' }));
    app.get('/x', requirePermission(authorizerNowOf(() => ({ allowed: true })), { policy: 'rbac', action: 'GET', resource: () => ({ type: 'Resource', id: 'x' }) }, { forwardErrors: true }), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(createErrorHandler(pino({ level: 'silent' }), 'api'));
    await expectUnavailable(await request(app).get('/x'));
  });
});
