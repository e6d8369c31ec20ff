import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { decisionRecordSchema } from '../relay-protocol';
import { authenticatedTenant } from '../control-plane';
import type { DecisionRepository, StoredDecision } from './decision-repository';
import { parseDecisionQuery } from './parse-decision-query';

/** A page of decision records, for the OpenAPI documents: the edge's record with its id, instance and arrival time. */
export const decisionsPageSchema = z.strictObject({
  decisions: z.array(decisionRecordSchema.extend({ id: z.number().int(), instance_id: z.string(), received_at: z.number().int() })),
  next: z.number().int().nullable(),
});

/**
 * One page of a tenant's decision records, as both APIs answer it: `decisions` newest first
 * (oldest first with `after`), and `next`, the `before` (or `after`) of the following page, or
 * null when this page is the last one for now.
 */
export async function decisionsPage(repository: DecisionRepository, tenantId: string, query: Record<string, unknown>): Promise<{ decisions: StoredDecision[]; next: number | null }> {
  const { filter, page } = parseDecisionQuery(query);
  const decisions = await repository.list(tenantId, filter, page);
  const last = decisions[decisions.length - 1];
  // With `after`, the next page starts after the newest record seen, even when this one was empty.
  const next = page.after !== undefined ? (last?.id ?? page.after) : decisions.length === page.limit && last ? last.id : null;
  return { decisions, next };
}

/**
 * `GET /api/v2/admin/decisions` (docs/reference/api.md, "Decision records"), mounted behind the
 * tenant's admin key, which set `res.locals.tenantId`: only that tenant's records are read.
 */
export function adminDecisionRoutes(decisions: DecisionRepository): Router {
  const router = express.Router();
  router.get('/', async function listDecisions(req: Request, res: Response) {
    res.set('cache-control', 'no-store');
    res.json(await decisionsPage(decisions, authenticatedTenant(res.locals), req.query));
  });
  return router;
}
