import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import { httpError, type HttpError } from '../http';
import type { DecisionRepository } from './decision-repository';
import { parseDecisionQuery } from './parse-decision-query';

/**
 * Bounds of the console's live decision stream (docs/reference/api.md, "Decision records"):
 * how often it looks for new records, how long one response lasts (the browser reconnects,
 * and its access token is checked again), the keep-alive comment's period, and the streams
 * one node serves at once: in all, per tenant and per user, each below the one before, so one
 * user (or one tenant's users) can never take every stream of the node.
 */
export const DECISION_STREAM = Object.freeze({ pollMs: 500, maxMs: 5 * 60_000, keepAliveMs: 15_000, maxOpen: 100, maxPerTenant: 20, maxPerUser: 5 });

/** The stream bounds {@link createStreamSlots} enforces. */
export interface StreamLimits {
  readonly maxOpen: number;
  readonly maxPerTenant: number;
  readonly maxPerUser: number;
}

/** Open streams counted per node, tenant and user; `take` gives a slot or refuses with 429. */
export interface StreamSlots {
  /** A slot for one stream of `userId` in `tenantId`, and the function that gives it back. */
  take(tenantId: string, userId: string): () => void;
}

function tooMany(scope: string): HttpError {
  return httpError('too_many_streams', `too many decision streams are open ${scope}; try again shortly`);
}

/** Counts open streams against `limits`: yours first, then your tenant's, then the node's. */
export function createStreamSlots(limits: StreamLimits = DECISION_STREAM): StreamSlots {
  let open = 0;
  const byTenant = new Map<string, number>();
  const byUser = new Map<string, number>();
  const change = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next === 0) counts.delete(key);
    else counts.set(key, next);
  };
  return {
    take(tenantId, userId) {
      if ((byUser.get(userId) ?? 0) >= limits.maxPerUser) throw tooMany('for you');
      if ((byTenant.get(tenantId) ?? 0) >= limits.maxPerTenant) throw tooMany('for this tenant');
      if (open >= limits.maxOpen) throw tooMany('on this node');
      open += 1;
      change(byTenant, tenantId, 1);
      change(byUser, userId, 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        open -= 1;
        change(byTenant, tenantId, -1);
        change(byUser, userId, -1);
      };
    },
  };
}

/** This node's slots. */
const nodeSlots = createStreamSlots();

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
 * client resumes with the last id it saw, so nothing is skipped and nothing repeated. A stream
 * past the bounds of {@link DECISION_STREAM} (per user, per tenant, per node) is 429
 * `too_many_streams`, naming which.
 */
export async function streamDecisions(decisions: DecisionRepository, tenantId: string, userId: string, req: Request, res: Response): Promise<void> {
  const resume = lastEventId(req);
  const query = resume !== undefined ? { ...(req.query as Record<string, unknown>), after: resume } : (req.query as Record<string, unknown>);
  const { filter, page } = parseDecisionQuery(query);
  let after = page.after ?? (await decisions.list(tenantId, {}, { limit: 1 }))[0]?.id ?? 0;
  const server = (req.socket as { server?: Server }).server;
  let closed = false;
  req.on('close', () => {
    closed = true;
  });
  const release = nodeSlots.take(tenantId, userId);
  const started = Date.now();
  let lastWrite = started;
  try {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    res.write(`retry: 1000\n: following decisions after ${after}\n\n`);
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
    release();
    res.end();
  }
}
