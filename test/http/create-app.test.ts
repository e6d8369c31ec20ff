import request from 'supertest';
import { BadRequestError, createApp, finishApp } from '../../src/http';
import { silentLogger } from '../../src/observability';

describe('createApp / finishApp', () => {
  const build = (shape: 'api' | 'oauth') => {
    const app = createApp(silentLogger(), { contentSecurityPolicy: { directives: { connectSrc: ["'self'", 'http://idp.test'] } } });
    app.get('/boom', () => {
      throw new BadRequestError('nope');
    });
    return finishApp(app, silentLogger(), shape);
  };

  it('sends helmet headers with the given options, a request id, and no X-Powered-By', async () => {
    const res = await request(build('api')).get('/boom');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("connect-src 'self' http://idp.test");
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('turns thrown errors and unknown paths into JSON in the app\'s shape', async () => {
    const api = build('api');
    expect((await request(api).get('/boom')).body).toEqual({ code: 'bad_request', message: 'nope' });
    expect((await request(api).get('/nowhere')).body).toEqual({ code: 'not_found', message: 'no route for GET /nowhere' });
    const oauth = await request(build('oauth')).get('/nowhere');
    expect(oauth.status).toBe(404);
    expect(oauth.body).toEqual({ error: 'not_found', error_description: 'no route for GET /nowhere' });
  });
});
