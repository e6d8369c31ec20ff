import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { NotFoundError, parseBody } from '../http';
import { decisionRecordSchema, INSTANCE_ID_PATTERN, tryDecisionRequestSchema, type TryDecisionRequest, type TryDecisionResult } from '../relay-protocol';
import type { ControlPlaneStore } from './control-plane-store';
import type { StoredDecision } from './decision-repository';
import { parseDecisionQuery } from './parse-decision-query';
import { memberOf, requireMember } from './require-member';
import { authenticatedTenant } from './require-tenant-key';
import { streamDecisions } from './stream-decisions';

/** A page of decision records, for the OpenAPI documents: the edge's record with its id, instance and arrival time. */
export const decisionsPageSchema = z.strictObject({
  decisions: z.array(decisionRecordSchema.extend({ id: z.number().int(), instance_id: z.string(), received_at: z.number().int() })),
  next: z.number().int().nullable(),
});

/** `POST …/decisions/try`: the edge to ask and the request, as the relay's `try_decision` carries it. */
export const tryDecisionBodySchema = tryDecisionRequestSchema.extend({ instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'instance_id must be an instance id') });

/**
 * One page of a tenant's decision records, as both APIs answer it: `decisions` newest first
 * (oldest first with `after`), and `next`, the `before` (or `after`) of the following page, or
 * null when this page is the last one for now.
 */
export async function decisionsPage(store: ControlPlaneStore, tenantId: string, query: Record<string, unknown>): Promise<{ decisions: StoredDecision[]; next: number | null }> {
  const { filter, page } = parseDecisionQuery(query);
  const decisions = await store.decisions.list(tenantId, filter, page);
  const last = decisions[decisions.length - 1];
  // With `after`, the next page starts after the newest record seen, even when this one was empty.
  const next = page.after !== undefined ? (last?.id ?? page.after) : decisions.length === page.limit && last ? last.id : null;
  return { decisions, next };
}

/**
 * `GET /api/v2/admin/decisions` (docs/reference/api.md, "Decision records"), mounted behind the
 * tenant's admin key, which set `res.locals.tenantId`: only that tenant's records are read.
 */
export function adminDecisionRoutes(store: ControlPlaneStore): Router {
  const router = express.Router();
  router.get('/', async function listDecisions(req: Request, res: Response) {
    res.set('cache-control', 'no-store');
    res.json(await decisionsPage(store, authenticatedTenant(res.locals), req.query));
  });
  return router;
}

/**
 * The console's Decisions view under `…/tenants/:tenantId/decisions` (docs/reference/api.md,
 * Console API): every member reads the tenant's records, as the admin API lists them, and
 * follows new ones at `…/decisions/stream`.
 */
export function consoleDecisionRoutes(
  store: ControlPlaneStore,
  tryDecision?: (tenantId: string, instanceId: string, request: TryDecisionRequest) => Promise<TryDecisionResult>,
): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  router.get('/', viewer, async function listDecisions(req: Request, res: Response) {
    res.json(await decisionsPage(store, memberOf(res.locals).tenantId, req.query));
  });
  // "Try a decision": one edge decides a request over the relay and records nothing.
  router.post('/try', viewer, async function tryAtEdge(req: Request, res: Response) {
    const { instance_id: instanceId, ...request } = parseBody(tryDecisionBodySchema, req.body, { what: 'tried decision' });
    if (!tryDecision) throw new NotFoundError('trying decisions is not served here', 'not_found');
    res.json(await tryDecision(memberOf(res.locals).tenantId, instanceId, request));
  });
  // The Decisions view's live feed: server-sent events, resumable (stream-decisions.ts).
  router.get('/stream', viewer, async function followDecisions(req: Request, res: Response) {
    const { tenantId, userId } = memberOf(res.locals);
    await streamDecisions(store.decisions, tenantId, userId, req, res);
  });
  return router;
}
