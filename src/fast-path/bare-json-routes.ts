import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { TLSSocket } from 'node:tls';
import { BadRequestError, requestIdFor, requestLog, securityHeaderRecords, type ErrorResponder } from '../http';
import type { Logger } from '../observability';

/** What a bare route is handed: the request's headers, and its JSON body when it asks for it. */
export interface BareJsonRequest {
  readonly headers: IncomingHttpHeaders;
  /** Reads and parses the body as `jsonBody` would; call it after the credentials are checked. */
  readJson(): Promise<unknown>;
}

/** A 200 answer: its extra headers and its JSON body. */
export interface BareJsonReply {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** A `POST` route with a small JSON body, served ahead of an Express app by {@link serveBareJsonRoutes}. */
export interface BareJsonRoute {
  /** The exact path, nothing appended (no query string, no trailing slash). */
  readonly path: string;
  /** The body limit its Express twin gives `jsonBody`. */
  readonly limitBytes: number;
  /** Answers the request, or throws what the Express error middleware would be given. */
  handle(request: BareJsonRequest): Promise<BareJsonReply>;
}

// `jsonBody` accepts more (any `type-is` match of application/json, other UTF charsets, an
// `identity` encoding); those rarer forms stay with Express, which answers them as it always did.
const PLAIN_JSON_TYPE = /^application\/json(?:; ?charset=utf-8)?$/i;
const DIGITS = /^[0-9]{1,9}$/;

/**
 * Whether `req` is a request the bare path answers exactly as Express would: a JSON body of
 * a declared length within the limit, not compressed, not chunked. Anything else — an
 * oversized, compressed, chunked or otherwise typed body — goes to the Express route, whose
 * 401, 400, 413 and 415 answers are then unchanged by construction.
 */
function isPlainJsonPost(req: IncomingMessage, limitBytes: number): boolean {
  const { headers } = req;
  const length = headers['content-length'];
  return (
    length !== undefined &&
    DIGITS.test(length) &&
    Number(length) <= limitBytes &&
    headers['transfer-encoding'] === undefined &&
    headers['content-encoding'] === undefined &&
    PLAIN_JSON_TYPE.test(headers['content-type'] ?? '')
  );
}

/** JSON whitespace: what body-parser skips before its strict check. */
const isJsonSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * The body as `jsonBody`'s parser (body-parser) reads it: a byte-order mark dropped, an empty body is `{}`,
 * and (strict) only an object or an array is JSON — `42` or `"x"` is the same 400 as `{"a":`.
 */
function parseStrictJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  let at = 0;
  while (at < body.length && isJsonSpace(body.charCodeAt(at))) at += 1;
  const first = body[at];
  if (first === '{' || first === '[') {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      // The same answer as below.
    }
  }
  throw new BadRequestError('the request body is not valid JSON');
}

/** The whole body (its length is declared and within the limit: the HTTP parser reads no more). */
function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => reject(new BadRequestError('the request body could not be read')));
  });
}

/**
 * Serves `routes` on bare `node:http` ahead of `app`, with exactly the answers `app` gives the
 * same routes: createApp's security headers (helmet's defaults) and `X-Request-Id`, the
 * route's headers, one `writeHead` and one `end` (Node's fast path: no `setHeader` before),
 * the same request log line, and every failure answered and logged by `answerError`, the
 * responder `app`'s error middleware uses ({@link finishAppWith}). Only an exact `POST` to a
 * route's path with a plain JSON body ({@link isPlainJsonPost}) is taken here; every other
 * request, those paths' unusual ones included, goes to `app`, where each route keeps its
 * Express twin for them. An opt-in of the platform (RELAY_BARE_EXEC, docs/reference/configuration.md):
 * `npm run bench:relay-scale -- --only exec` measures both paths in one run (BENCHMARKS.md,
 * "One path per request").
 *
 * @throws TypeError at creation when `app` derives ETags from bodies: no bare answer carries one.
 */
export function serveBareJsonRoutes(routes: readonly BareJsonRoute[], app: Express, answerError: ErrorResponder, logger: Logger): RequestListener {
  if (app.enabled('etag')) throw new TypeError("the app behind bare routes must have 'etag' off, as their answers carry none");
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const security = securityHeaderRecords();
  const logRequest = requestLog(logger);

  function send(req: IncomingMessage, res: ServerResponse, id: string, status: number, headers: Readonly<Record<string, string>>, body: unknown): void {
    const payload = JSON.stringify(body);
    // Express's order: helmet's headers, the request id, the route's, then res.json's own two.
    const all: Record<string, string> = { ...((req.socket as TLSSocket).encrypted === true ? security.overHttps : security.overHttp), 'X-Request-Id': id };
    for (const name in headers) all[name] = headers[name] as string;
    all['Content-Type'] = 'application/json; charset=utf-8';
    all['Content-Length'] = String(Buffer.byteLength(payload));
    res.writeHead(status, all);
    res.end(payload);
  }

  async function serve(route: BareJsonRoute, req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    let reply: BareJsonReply;
    try {
      reply = await route.handle({ headers: req.headers, readJson: async () => parseStrictJson(await readText(req)) });
    } catch (err) {
      const answer = answerError(err, id);
      send(req, res, id, answer.status, answer.headers, answer.body);
      return;
    }
    send(req, res, id, 200, reply.headers, reply.body);
  }

  return function bareJsonRoutes(req, res) {
    const route = req.method === 'POST' ? byPath.get(req.url ?? '') : undefined;
    if (route === undefined || !isPlainJsonPost(req, route.limitBytes)) {
      app(req, res);
      return;
    }
    const started = process.hrtime.bigint();
    const id = requestIdFor(req);
    res.on('finish', () => logRequest(id, 'POST', route.path, res.statusCode, started));
    // Never an unhandled rejection: on Node 20 that ends the process. A failure here is in
    // writing the answer itself (an invalid header value); nothing more can be said.
    serve(route, req, res, id).catch(() => res.destroy());
  };
}

/** A route once its caller is known: the shape of the relay's command routes (src/relay/command-routes.ts). */
export interface TenantJsonRoute {
  readonly path: string;
  readonly limitBytes: number;
  run(tenantId: string, body: unknown): Promise<BareJsonReply>;
}

/**
 * `routes` as bare routes, in their Express twins' order: `authenticate` first (the tenant's
 * key, before any byte of the body), then the body, then the route for that tenant alone.
 */
export function tenantJsonRoutes(routes: readonly TenantJsonRoute[], authenticate: (headers: IncomingHttpHeaders) => Promise<string>): BareJsonRoute[] {
  return routes.map((route) => ({
    path: route.path,
    limitBytes: route.limitBytes,
    async handle(request) {
      const tenantId = await authenticate(request.headers);
      return route.run(tenantId, await request.readJson());
    },
  }));
}
