import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HttpError, requestIdFor } from '../http';
import type { Logger } from '../observability';
import type { DecisionRoute } from './decision-support';

const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

/**
 * One `writeHead` with every header (no earlier `setHeader`: Node then takes its fast path)
 * and one `end`: JSON, never sniffed, never cached. Built by assignment, not object spread:
 * on Node 20 (V8 11.3) spreads in a hot path have crashed the process in a lazy
 * deoptimisation (see local-authorizer.ts), and a bench run of this server did once.
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
    const tooLarge = () => new HttpError(413, 'payload_too_large', 'the request body is too large', { connection: 'close' });
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
    req.on('error', () => reject(new HttpError(400, 'bad_request', 'the request body could not be read')));
  });
}

function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

async function serve(route: DecisionRoute, req: IncomingMessage, res: ServerResponse, logger: Logger): Promise<void> {
  const id = requestIdFor(req);
  try {
    const text = await readBody(req, route.limitBytes);
    // An empty body is the route's schema's business (400 naming what is missing).
    if (text !== '' && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      throw new HttpError(415, 'unsupported_media_type', 'send the body as application/json (UTF-8)');
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new HttpError(400, 'bad_request', 'the request body is not valid JSON');
    }
    const reply = await route.handle({ body, header: (name) => singleHeader(req, name), id });
    send(res, 200, id, reply.headers, reply.body);
  } catch (err) {
    const known = err instanceof HttpError ? err : undefined;
    if (!known) logger.error({ req_id: id, err }, 'unhandled error');
    else logger.info({ req_id: id, method: 'POST', path: route.path, status: known.status, code: known.code, detail: known.detail }, 'request refused');
    if (res.headersSent) return;
    send(res, known?.status ?? 500, id, known?.headers ?? {}, known?.toBody() ?? { code: 'server_error', message: 'internal error' });
    // An oversized body is not read to its end: the connection goes once the answer is out.
    if (known?.status === 413) res.once('finish', () => req.socket.destroySoon());
  }
}

/**
 * The sidecar's request listener: `POST` to a decision route is served right here on
 * `node:http` — bounded body read, `JSON.parse`, the route's zod schema, the decision,
 * one log line — and everything else (health, metrics, OpenAPI, AuthZEN metadata, 404s)
 * goes to the Express app. `npm run bench:relay` measured why: the same decision code
 * behind Express, helmet and the request log answered well under half what a bare
 * `node:http` JSON endpoint does (see BENCHMARKS.md). Errors keep the `{code, message}`
 * shape and statuses of the rest of the API.
 */
export function createDecisionListener(routes: readonly DecisionRoute[], fallback: RequestListener, logger: Logger): RequestListener {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const route = req.method === 'POST' ? byPath.get(query === -1 ? url : url.slice(0, query)) : undefined;
    if (route) void serve(route, req, res, logger);
    else fallback(req, res);
  };
}
