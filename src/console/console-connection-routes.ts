import express, { type Router } from 'express';
import { z } from 'zod';
import { POLICY_NAME_PATTERN, POLICY_NAME_RULE } from '../decision-protocol';
import { ConflictError, NotFoundError, parseBody } from '../http';
import { connectionLabelSchema, type ControlPlaneStore, recordAudit } from '../control-plane';
import { memberOf, requireMember } from './require-member';

/** `POST …/connections`: the policy the new connection's edge serves, and optionally what it is (its label). */
export const consoleConnectionSchema = z.strictObject({
  policy_name: z.string().regex(POLICY_NAME_PATTERN, POLICY_NAME_RULE),
  label: connectionLabelSchema.optional(),
});
/** Edge connections a tenant may have once the console creates them (docs/reference/limits.md). */
export const MAX_CONNECTIONS_PER_TENANT = 100;

/**
 * The console's Connections view under `…/tenants/:tenantId/connections` (docs/reference/api.md,
 * Console API): every member lists the connections (id, policy, label) and where the Discovery
 * API key stands; admins and owners create one for a pushed policy, its secret in that answer
 * only. `rotate` is where the key is rotated (the console router's own route).
 */
export function consoleConnectionRoutes(store: ControlPlaneStore, rotatePath: (tenantId: string) => string): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  const admin = requireMember(store, 'admin');

  router.get('/', viewer, async function connections(_req, res) {
    const { tenantId } = memberOf(res.locals);
    const summary = (await store.tenants.get(tenantId))!;
    res.json({
      tenant_id: tenantId,
      connections: summary.connections.map((c) => ({ connection_id: c.connectionId, policy_name: c.policyName, label: c.label })),
      // Only the key's SHA-256 is stored: the console can say it exists, never show it.
      discovery_api_key: { stored: 'sha256_only', rotate: rotatePath(tenantId) },
    });
  });

  router.post('/', admin, async function createConnection(req, res) {
    const { tenantId, userId } = memberOf(res.locals);
    const { policy_name: policyName, label } = parseBody(consoleConnectionSchema, req.body);
    const created = await store.transaction(async (tx) => {
      // Count-then-add: under the tenant's row lock, so concurrent requests cannot both pass the bound.
      await tx.tenants.lock(tenantId);
      if ((await tx.images.taggedDigest(tenantId, policyName)) === undefined) {
        throw new NotFoundError(`no policy named ${policyName}: push it first`, 'unknown_policy');
      }
      if ((await tx.tenants.get(tenantId))!.connections.length >= MAX_CONNECTIONS_PER_TENANT) {
        throw new ConflictError(`this tenant already has ${MAX_CONNECTIONS_PER_TENANT} connections`, 'too_many_connections');
      }
      const connection = await tx.tenants.addConnection(tenantId, policyName, label);
      // The id only: the secret is in this answer and nowhere else (the store keeps its hash).
      await recordAudit(tx.audit, tenantId, userId, 'connection.create', connection.connectionId);
      return connection;
    });
    res.status(201).json({ connection_id: created.connectionId, policy_name: policyName, label: label ?? null, connection_secret: created.connectionSecret });
  });
  return router;
}
