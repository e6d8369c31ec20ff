import express from 'express';
import request from 'supertest';
import { createApp, createErrorHandler, errorInShape, finishApp, HttpError, notFound, ServiceUnavailableError, type ErrorTranslator } from '../../src/http';
import { capturingLogger } from '../helpers/capturing-logger';

describe('the error middleware: public message, log-only detail', () => {
  const SECRET_DETAIL = 'connect ECONNREFUSED 10.1.2.3:5432 password=hunter2';

  function build(shape: 'api' | 'oauth') {
    const { logger, lines } = capturingLogger();
    const app = createApp(logger);
    app.get('/crash', () => {
      throw new Error(SECRET_DETAIL);
    });
    app.get('/down', () => {
      throw new ServiceUnavailableError('the directory is unavailable', 'not_ready', SECRET_DETAIL);
    });
    return { app: finishApp(app, logger, shape), lines };
  }

  it('answers an unexpected error with a generic 500 and logs what happened with the request id', async () => {
    const { app, lines } = build('api');
    const res = await request(app).get('/crash');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'server_error', message: 'internal error' });
    expect(res.text).not.toContain('hunter2');
    const logged = lines.find((l) => l.msg === 'unhandled error');
    expect(logged).toMatchObject({ req_id: res.headers['x-request-id'], err: { message: SECRET_DETAIL } });
  });

  it('answers in the OAuth shape for the IdP', async () => {
    const res = await request(build('oauth').app).get('/crash');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'server_error', error_description: 'internal error' });
  });

  it('sends a typed error’s public message and keeps its detail in the log', async () => {
    const { app, lines } = build('api');
    const res = await request(app).get('/down');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ code: 'not_ready', message: 'the directory is unavailable' });
    expect(res.text).not.toContain('ECONNREFUSED');
    expect(lines).toContainEqual(expect.objectContaining({ req_id: res.headers['x-request-id'], code: 'not_ready', detail: SECRET_DETAIL }));
  });
});

describe('the error middleware: translators of library errors', () => {
  /** An error shaped like a library's: a code, and a message that must stay in-house. */
  function libraryError(code: string): Error {
    return Object.assign(new Error('the library says password=hunter2'), { code });
  }

  /** Answers `LIB_BUSY` with a 503 of its own, in either shape. */
  const busy: ErrorTranslator = {
    label: 'library',
    translate: (err, shape) =>
      (err as { code?: unknown }).code === 'LIB_BUSY' ? errorInShape(shape, shape === 'oauth' ? 'temporarily_unavailable' : 'storage_unavailable', 'the library is busy') : undefined,
  };
  /** Answers every coded error with a 502, so the test can see which translator is asked first. */
  const anyCode: ErrorTranslator = {
    label: 'fallback',
    translate: (err) => ((err as { code?: unknown }).code === undefined ? undefined : new HttpError(502, 'bad_gateway', 'fallback')),
  };

  function build(shape: 'api' | 'oauth', err: unknown, translators: readonly ErrorTranslator[]) {
    const { logger, lines } = capturingLogger();
    const app = createApp(logger);
    app.get('/fail', () => {
      throw err;
    });
    return { app: finishApp(app, logger, shape, translators), lines };
  }

  it('answers what a translator makes of an error and logs it once, by code, as the translator’s kind of error', async () => {
    const { app, lines } = build('api', libraryError('LIB_BUSY'), [busy]);
    const res = await request(app).get('/fail');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ code: 'storage_unavailable', message: 'the library is busy' });
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([
      expect.objectContaining({ level: 50, msg: 'library error', kind: 'storage_unavailable LIB_BUSY', req_id: res.headers['x-request-id'], err_code: 'LIB_BUSY' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('answers in the OAuth shape at the IdP', async () => {
    const res = await request(build('oauth', libraryError('LIB_BUSY'), [busy]).app).get('/fail');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'the library is busy' });
  });

  it('asks the translators in order and keeps the first answer', async () => {
    expect((await request(build('api', libraryError('LIB_BUSY'), [busy, anyCode]).app).get('/fail')).status).toBe(503);
    expect((await request(build('api', libraryError('LIB_BUSY'), [anyCode, busy]).app).get('/fail')).status).toBe(502);
  });

  it('keeps an error no translator knows a 500, and never hands a typed error to a translator', async () => {
    expect((await request(build('api', libraryError('LIB_OTHER'), [busy]).app).get('/fail')).body).toEqual({ code: 'server_error', message: 'internal error' });
    const typed = Object.assign(new HttpError(409, 'conflict', 'no'), { code: 'LIB_BUSY' });
    expect((await request(build('api', typed, [busy, anyCode]).app).get('/fail')).status).toBe(409);
  });

  it('knows no storage of its own: without a translator a database outage is a 500 (src/sql brings the 503)', async () => {
    const { app, lines } = build('api', Object.assign(new Error('terminating connection'), { code: '57P01' }), []);
    const res = await request(app).get('/fail');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'server_error', message: 'internal error' });
    expect(lines.find((l) => l.msg === 'storage error')).toBeUndefined();
  });
});

describe('the error middleware: our failures, once per kind per minute', () => {
  /** An app whose routes fail as the test says, with the error handler's log on a stepped clock. */
  function build() {
    const { logger, lines } = capturingLogger();
    const clock = { now: 1_000_000 };
    const app = createApp(logger);
    app.get('/crash', () => {
      throw new TypeError('a bug, told only to the log');
    });
    app.get('/range', () => {
      throw new RangeError('another bug');
    });
    app.get('/wrapped', () => {
      throw Object.assign(new ServiceUnavailableError('the authorizer is unavailable', 'authorizer_unavailable', 'TypeError while deciding'), {
        cause: new TypeError('the wrapped bug'),
      });
    });
    app.get('/down', () => {
      throw new ServiceUnavailableError('the directory is unavailable', 'not_ready');
    });
    app.use(notFound('api'));
    app.use(createErrorHandler(logger, 'api', { now: () => clock.now }));
    return { app, lines, clock, failures: () => lines.filter((l) => (l.level as number) >= 40) };
  }

  it('logs the first unexpected error of a kind, counts the rest for a minute, then says how many', async () => {
    const { app, clock, failures } = build();
    for (let i = 0; i < 4; i += 1) {
      await request(app).get('/crash').expect(500, { code: 'server_error', message: 'internal error' });
      clock.now += 10_000;
    }
    await request(app).get('/range').expect(500);
    expect(failures().map((l) => [l.msg, l.kind, l.suppressed])).toEqual([
      ['unhandled error', 'server_error TypeError', 0],
      ['unhandled error', 'server_error RangeError', 0],
    ]);
    clock.now += 60_000;
    const res = await request(app).get('/crash').expect(500);
    expect(failures().at(-1)).toMatchObject({ req_id: res.headers['x-request-id'], kind: 'server_error TypeError', suppressed: 3 });
  });

  it('logs a typed 5xx that wraps an exception with the exception and its stack, at error level', async () => {
    const { app, failures } = build();
    const res = await request(app).get('/wrapped').expect(503);
    expect(res.text).not.toContain('wrapped bug');
    expect(failures()).toEqual([
      expect.objectContaining({
        level: 50,
        kind: 'authorizer_unavailable TypeError',
        code: 'authorizer_unavailable',
        detail: 'TypeError while deciding',
        err: expect.objectContaining({ message: 'the wrapped bug', stack: expect.stringContaining('TypeError: the wrapped bug') }),
      }),
    ]);
    await request(app).get('/wrapped').expect(503);
    expect(failures()).toHaveLength(1);
  });

  it('logs a typed 5xx without a cause as a warning, once per minute', async () => {
    const { app, failures } = build();
    await request(app).get('/down').expect(503);
    await request(app).get('/down').expect(503);
    expect(failures()).toEqual([expect.objectContaining({ level: 40, kind: 'not_ready ServiceUnavailableError', suppressed: 0 })]);
  });
});

describe('the error middleware: Retry-After on every 503', () => {
  function build() {
    const { logger } = capturingLogger();
    const app = createApp(logger);
    app.get('/plain', () => {
      throw new ServiceUnavailableError('the directory is unavailable', 'not_ready');
    });
    app.get('/own', () => {
      throw new HttpError(503, 'temporarily_unavailable', 'the keys are unavailable', { 'Retry-After': '5' });
    });
    app.get('/conflict', () => {
      throw new HttpError(409, 'conflict', 'no');
    });
    return finishApp(app, logger, 'api');
  }

  it('adds Retry-After: 1 to a 503 that names no wait, keeps the one a 503 names, and adds none to other statuses', async () => {
    const app = build();
    expect((await request(app).get('/plain').expect(503)).headers['retry-after']).toBe('1');
    expect((await request(app).get('/own').expect(503)).headers['retry-after']).toBe('5');
    expect((await request(app).get('/conflict').expect(409)).headers['retry-after']).toBeUndefined();
  });
});

describe('the error middleware: a route parameter that does not decode', () => {
  /** A bare Express app (no createApp, so no early check): only the router's own URIError reaches the handler. */
  function build(shape: 'api' | 'oauth') {
    const { logger, lines } = capturingLogger();
    const app = express();
    app.get('/item/:id', (req, res) => void res.json({ id: req.params.id }));
    app.get('/bug', () => {
      throw new URIError('URI malformed');
    });
    app.use(createErrorHandler(logger, shape));
    return { app, lines };
  }

  it('answers the router\'s URIError with 400 bad_request and one info line without a stack', async () => {
    const { app, lines } = build('api');
    const res = await request(app).get('/item/%ff');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'bad_request', message: 'the URL path is not valid percent-encoded UTF-8' });
    expect(lines.map((l) => [l.level, l.msg, l.code])).toEqual([[30, 'malformed URL refused', 'bad_request']]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });

  it('answers in the OAuth shape at the IdP', async () => {
    const res = await request(build('oauth').app).get('/item/a%2');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'the URL path is not valid percent-encoded UTF-8' });
  });

  it('keeps any other URIError a 500: decoding something in our own code is a bug', async () => {
    const res = await request(build('api').app).get('/bug');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'server_error', message: 'internal error' });
  });
});
