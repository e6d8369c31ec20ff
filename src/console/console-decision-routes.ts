import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { ControlPlaneStore } from '../control-plane';
import { decisionsPage, streamDecisions, type DecisionRepository } from '../decision-store';
import { NotFoundError, parseBody } from '../http';
import { INSTANCE_ID_PATTERN, tryDecisionRequestSchema, type TryDecisionRequest, type TryDecisionResult } from '../relay-protocol';
import { memberOf, requireMember } from './require-member';

/** `POST …/decisions/try`: the edge to ask and the request, as the relay's `try_decision` carries it. */
export const tryDecisionBodySchema = tryDecisionRequestSchema.extend({ instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'instance_id must be an instance id') });

/**
 * The console's Decisions view under `…/tenants/:tenantId/decisions` (docs/reference/api.md,
 * Console API): every member reads the tenant's records, as the admin API lists them, and
 * follows new ones at `…/decisions/stream`.
 */
export function consoleDecisionRoutes(
  store: ControlPlaneStore,
  decisions: DecisionRepository,
  tryDecision?: (tenantId: string, instanceId: string, request: TryDecisionRequest) => Promise<TryDecisionResult>,
): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  router.get('/', viewer, async function listDecisions(req: Request, res: Response) {
    res.json(await decisionsPage(decisions, memberOf(res.locals).tenantId, req.query));
  });
  // "Try a decision": one edge decides a request over the relay and records nothing.
  router.post('/try', viewer, async function tryAtEdge(req: Request, res: Response) {
    const { instance_id: instanceId, ...request } = parseBody(tryDecisionBodySchema, req.body, { what: 'tried decision' });
    if (!tryDecision) throw new NotFoundError('trying decisions is not served here', 'not_found');
    res.json(await tryDecision(memberOf(res.locals).tenantId, instanceId, request));
  });
  // The Decisions view's live feed: server-sent events, resumable (src/decision-store).
  router.get('/stream', viewer, async function followDecisions(req: Request, res: Response) {
    const { tenantId, userId } = memberOf(res.locals);
    await streamDecisions(decisions, tenantId, userId, req, res);
  });
  return router;
}
