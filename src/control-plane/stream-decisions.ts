import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import { HttpError } from '../http';
import type { DecisionRepository } from './decision-repository';
import { parseDecisionQuery } from './parse-decision-query';

/**
 * Bounds of the console's live decision stream (docs/reference/api.md, "Decision records"):
 * how often it looks for new records, how long one response lasts (the browser reconnects,
 * and its access token is checked again), the keep-alive comment's period, and the streams
 * one node serves at once.
 */
export const DECISION_STREAM = Object.freeze({ pollMs: 500, maxMs: 5 * 60_000, keepAliveMs: 15_000, maxOpen: 100 });

let open = 0;

/** `id` of the `Last-Event-ID` header (a reconnecting EventSource sends it), when it is one. */
function lastEventId(req: Request): string | undefined {
  const value = req.headers['last-event-id'];
  return typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? value : undefined;
}

/**
 * Serves one tenant's new decision records as server-sent events (WHATWG HTML, "Server-sent
 * events"): `event: decision`, `id: <record id>`, `data: <record JSON>`, oldest first, from
 * after `after` (or `Last-Event-ID`; without either, from now). Filters are the listing's. The
 * response ends after {@link DECISION_STREAM.maxMs}, or when the server stops listening; the
 * client resumes with the last id it saw, so nothing is skipped and nothing repeated. More
 * than `maxOpen` streams at once on a node is 429 `too_many_streams`.
 */
export async function streamDecisions(decisions: DecisionRepository, tenantId: string, req: Request, res: Response): Promise<void> {
  const resume = lastEventId(req);
  const query = resume !== undefined ? { ...(req.query as Record<string, unknown>), after: resume } : (req.query as Record<string, unknown>);
  const { filter, page } = parseDecisionQuery(query);
  let after = page.after ?? (await decisions.list(tenantId, {}, { limit: 1 }))[0]?.id ?? 0;
  if (open >= DECISION_STREAM.maxOpen) throw new HttpError(429, 'too_many_streams', 'too many decision streams are open on this node; try again shortly', { 'retry-after': '5' });
  open += 1;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  res.write(`retry: 1000\n: following decisions after ${after}\n\n`);
  const server = (req.socket as { server?: Server }).server;
  const started = Date.now();
  let lastWrite = started;
  let closed = false;
  req.on('close', () => {
    closed = true;
  });
  try {
    while (!closed && server?.listening !== false && Date.now() - started < DECISION_STREAM.maxMs) {
      await new Promise((resolve) => setTimeout(resolve, DECISION_STREAM.pollMs));
      if (closed) break;
      const fresh = await decisions.list(tenantId, filter, { after, limit: 100 });
      for (const d of fresh) {
        res.write(`event: decision\nid: ${d.id}\ndata: ${JSON.stringify(d)}\n\n`);
        after = d.id;
      }
      if (fresh.length > 0) lastWrite = Date.now();
      else if (Date.now() - lastWrite >= DECISION_STREAM.keepAliveMs) {
        res.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
    }
  } catch {
    // A database that failed mid-stream ends it; the client reconnects and resumes.
  } finally {
    open -= 1;
    res.end();
  }
}
