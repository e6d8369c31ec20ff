/**
 * `upgrade-insecure-requests` only over HTTPS: on a page served over plain http from any host
 * but localhost (http://192.168.1.20:8585/console/) the browser would upgrade every script
 * request to https and load none, so neither the console nor the todo page could start.
 */
import express from 'express';
import request from 'supertest';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { consolePageRouter, consolePublicDir } from '../../src/console';
import { findProjectRoot } from '../../src/config';
import { contentSecurityPolicy, createApp, finishApp } from '../../src/http';
import { silentLogger } from '../../src/observability';

const root = findProjectRoot();
const IDP = 'http://idp.example:5556';

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | undefined): Map<string, string> {
  return new Map((header ?? '').split(';').map((d) => d.trim().split(/\s+(.*)/s) as [string, string]).map(([name, value = '']) => [name, value]));
}

describe('the pages over plain http, from a host that is not localhost', () => {
  let store: TodoStore | undefined;
  afterAll(() => store?.close());

  it('the console sends no upgrade-insecure-requests, and keeps its other directives', async () => {
    const app = createApp(silentLogger());
    app.use(consolePageRouter({ publicDir: consolePublicDir(root), authUrl: IDP }));
    const res = await request(finishApp(app, silentLogger(), 'api')).get('/console/').set('Host', '192.168.1.20:8585');
    expect(res.status).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(csp.get('connect-src')).toBe(`'self' ${IDP}`);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self'");
  });

  it('the todo page neither', async () => {
    store = openTodoStore(':memory:');
    const authorizer: Authorizer = { kind: 'local', authorize: () => Promise.resolve({ allowed: false, policyPath: 'todo' }), close: () => Promise.resolve() };
    const app = createTodoApp({
      authenticate: (_req, res) => void res.status(401).end(),
      authorizer,
      store,
      directory: () => ({}) as never,
      logger: silentLogger(),
      publicDir: `${root}/src/apps/todo/public`,
      authUrl: IDP,
    });
    const res = await request(app).get('/').set('Host', '192.168.1.20:3002');
    expect(res.status).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(csp.get('connect-src')).toBe(`'self' ${IDP}`);
  });
});

describe('contentSecurityPolicy', () => {
  /** An app that believes X-Forwarded-Proto, so a request can say it came over https (req.secure). */
  function build() {
    const app = express();
    app.set('trust proxy', true);
    app.use(contentSecurityPolicy({ connectSrc: ["'self'", IDP] }));
    app.get('/', (_req, res) => void res.send('ok'));
    return app;
  }

  it('adds upgrade-insecure-requests over https only', async () => {
    const https = directives((await request(build()).get('/').set('X-Forwarded-Proto', 'https')).headers['content-security-policy']);
    expect(https.has('upgrade-insecure-requests')).toBe(true);
    expect(https.get('connect-src')).toBe(`'self' ${IDP}`);
    const http = directives((await request(build()).get('/')).headers['content-security-policy']);
    expect(http.has('upgrade-insecure-requests')).toBe(false);
    // Otherwise the same policy, helmet's defaults included.
    https.delete('upgrade-insecure-requests');
    expect(http).toEqual(https);
  });
});
