import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AuthorizerUnavailableError } from '../decision';
import { HttpError, httpError, requestIdFor } from '../http';
import { createRateLimitedLog, thrownName, type Logger, type RateLimitedLog } from '../observability';
import type { DecisionRoute } from '../edge';

const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

/**
 * One `writeHead` with every header (no earlier `setHeader`: Node then takes its fast path)
 * and one `end`: JSON, never sniffed, never cached. Throws, writing nothing, when a header
 * value is invalid.
 */
function send(res: ServerResponse, status: number, id: string, extra: Readonly<Record<string, string>>, body: unknown): void {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'x-request-id': id,
  };
  for (const name in extra) headers[name] = extra[name] as string;
  res.writeHead(status, headers);
  res.end(payload);
}

/** The body as text, at most `limit` bytes: 413 before reading when `content-length` says more, or as soon as more arrives. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => httpError('payload_too_large', undefined, { headers: { connection: 'close' } });
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(tooLarge());
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    req.on('error', () => reject(httpError('bad_request', 'the request body could not be read')));
  });
}

function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What a failure answers. An `HttpError` keeps its status (a client's 400/413/415, a 409, a
 * 503 the edge raised on purpose) and gets one info line. Anything else thrown while
 * deciding — a bug, a library's surprise, a non-Error — fails closed as 503
 * `authorizer_unavailable`, never a 500 and never an allow; its detail and stack go to a
 * log line written once per kind (route and error name) per minute.
 */
function failureOf(thrown: unknown, route: DecisionRoute, id: string, logger: Logger, failures: RateLimitedLog): HttpError {
  if (thrown instanceof HttpError) {
    logger.info({ req_id: id, method: 'POST', path: route.path, status: thrown.status, code: thrown.code, detail: thrown.detail }, 'request refused');
    return thrown;
  }
  const name = thrownName(thrown);
  const error = new AuthorizerUnavailableError(`${name} while deciding ${route.path}`);
  failures.write('error', `${route.path} ${name}`, { req_id: id, path: route.path, err: thrown }, 'decision failed');
  logger.info({ req_id: id, method: 'POST', path: route.path, status: error.status, code: error.code, detail: error.detail }, 'request refused');
  return error;
}

async function serve(route: DecisionRoute, req: IncomingMessage, res: ServerResponse, id: string, logger: Logger, failures: RateLimitedLog): Promise<void> {
  let failure: HttpError;
  try {
    const text = await readBody(req, route.limitBytes);
    // An empty body is the route's schema's business (400 naming what is missing).
    if (text !== '' && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      throw httpError('unsupported_media_type', 'send the body as application/json (UTF-8)', { status: route.wrongMediaTypeStatus ?? 415 });
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw httpError('bad_request', 'the request body is not valid JSON');
    }
    const reply = await route.handle({ body, header: (name) => singleHeader(req, name), id });
    // Inside the try: a reply that cannot be sent (an invalid header value) is a failure like any other.
    send(res, 200, id, reply.headers, reply.body);
    return;
  } catch (err) {
    failure = failureOf(err, route, id, logger, failures);
  }
  if (res.headersSent) return;
  send(res, failure.status, id, failure.headers, failure.toBody());
  // An oversized body is not read to its end: the connection goes once the answer is out.
  if (failure.status === 413) res.once('finish', () => req.socket.destroySoon());
}

/** The answer when even the error answer failed (a logger that throws, an error with an invalid header): 503 as plain as can be, else a dropped connection. */
function lastResort(res: ServerResponse, id: string): void {
  try {
    if (!res.headersSent) {
      const error = new AuthorizerUnavailableError('');
      send(res, error.status, id, error.headers, error.toBody());
      return;
    }
  } catch {
    // Fall through: nothing more can be said on this connection.
  }
  res.destroy();
}

/**
 * The sidecar's request listener: `POST` to a decision route is served right here on
 * `node:http` — bounded body read, `JSON.parse`, the route's zod schema, the decision,
 * one log line — and everything else (health, metrics, OpenAPI, AuthZEN metadata, 404s)
 * goes to the Express app. `npm run bench:relay` measured why: the same decision code
 * behind Express, helmet and the request log answered well under half what a bare
 * `node:http` JSON endpoint does (see BENCHMARKS.md). Errors keep the `{code, message}`
 * shape and statuses of the rest of the API; an unexpected failure is a 503 (see
 * {@link failureOf}). `now` is the failure log's clock, for tests.
 */
export function createDecisionListener(
  routes: readonly DecisionRoute[],
  fallback: RequestListener,
  logger: Logger,
  options: { readonly now?: () => number } = {},
): RequestListener {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const failures = createRateLimitedLog(logger, options.now ? { now: options.now } : {});
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const route = req.method === 'POST' ? byPath.get(query === -1 ? url : url.slice(0, query)) : undefined;
    if (!route) {
      fallback(req, res);
      return;
    }
    const id = requestIdFor(req);
    // Never an unhandled rejection: on Node 20 that ends the process, and every request with it.
    serve(route, req, res, id, logger, failures).catch(() => lastResort(res, id));
  };
}
