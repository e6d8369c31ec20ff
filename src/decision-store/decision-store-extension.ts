import express from 'express';
import { requireTenantKey, type ControlPlaneStore } from '../control-plane';
import { apiErrors, badRequest, type ApiRoute } from '../http';
import { ADMIN_AUTH, type DocumentedExtension } from '../openapi';
import { createDecisionRepository, type DecisionRepository } from './decision-repository';
import { adminDecisionRoutes, decisionsPageSchema } from './decision-routes';

/** Where the admin API lists a tenant's decision records. */
const ADMIN_DECISIONS = '/api/v2/admin/decisions';

/** The admin API's route of decision records, for the control plane's OpenAPI document. */
export const DECISION_STORE_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: ADMIN_DECISIONS,
    summary:
      "The tenant's decision records, newest first (query: principal, action, resource, decision, instance, request_id, since; before or after <id>; limit ≤ 500)",
    responses: {
      200: { description: 'one page and the cursor of the next', schema: decisionsPageSchema },
      ...apiErrors([badRequest('a bad or unknown query parameter'), ADMIN_AUTH]),
    },
  },
];

/**
 * Each tenant's decision records in the control plane's database (their tables are declared
 * with the rest of its schema, src/control-plane/migrations), over the store's own handle.
 */
export function openDecisionRepository(store: ControlPlaneStore): DecisionRepository {
  return createDecisionRepository(store.database);
}

/**
 * Decision records plugged into the control plane (`createControlPlaneApp`'s extensions):
 * `GET /api/v2/admin/decisions` behind the tenant's admin key (docs/reference/api.md,
 * "Decision records"), and its route in `/openapi.json`.
 */
export function decisionStoreExtension(store: ControlPlaneStore, decisions: DecisionRepository): DocumentedExtension {
  const router = express.Router().use(ADMIN_DECISIONS, requireTenantKey(store, 'admin'), adminDecisionRoutes(decisions));
  return { router, routes: DECISION_STORE_ROUTES };
}
