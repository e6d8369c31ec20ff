import { Router } from 'express';
import { authenticatedTenant, recordAdminKeyAudit, type ControlPlaneStore } from '../control-plane';
import { httpError, NotFoundError, parseBody, parseParam } from '../http';
import { addSigningKeyBodySchema, publicPart, signingKeyId, SIGNING_KEY_LIMITS } from '../policy';
import { createSigningKeyRepository } from './signing-key-repository';

/** A key id: an RFC 7638 SHA-256 thumbprint, base64url. */
const KID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The tenant's image-signing keys (admin key). Once a tenant has a key, every push must be
 * signed by one of its keys; removing the last key lifts that requirement. Adding a new key
 * and removing one are written to the tenant's audit log as the admin key's
 * (`signing_key.add` / `signing_key.remove`, target the key id).
 *
 *   curl -X POST {relay_url}/api/v2/admin/signing-keys -H 'content-type: application/json' \
 *     -H 'service-tenant-id: <TENANT_ID>' -H 'Authorization: basic <ADMIN_API_KEY>' \
 *     -d '{"jwk":{"kty":"OKP","crv":"Ed25519","x":"…"}}'
 */
export function adminSigningKeyRoutes(store: ControlPlaneStore): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const { jwk } = parseBody(addSigningKeyBodySchema, req.body);
    // Stored without any `kid` the caller sent: the id is the key's own thumbprint.
    const stored = publicPart(jwk);
    const kid = await signingKeyId(stored);
    const added = await store.transaction(async (tx) => {
      const result = await createSigningKeyRepository(tx.sql).add(tenantId, kid, stored);
      if (result.created) await recordAdminKeyAudit(tx.audit, tenantId, 'signing_key.add', kid);
      return result;
    });
    if (added.quotaExceeded) {
      throw httpError('quota_exceeded', `this tenant already has ${SIGNING_KEY_LIMITS.maxKeys} signing keys`);
    }
    res.status(added.created ? 201 : 200).json({ kid });
  });

  router.get('/', async (_req, res) => {
    const keys = await createSigningKeyRepository(store.sql).list(authenticatedTenant(res.locals));
    res.json({ keys: keys.map((k) => ({ kid: k.kid, jwk: k.jwk, created_at: new Date(k.createdAt).toISOString() })) });
  });

  router.delete('/:kid', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const kid = parseParam(req.params.kid, KID, 'key id');
    await store.transaction(async (tx) => {
      if (!(await createSigningKeyRepository(tx.sql).remove(tenantId, kid))) throw new NotFoundError('no signing key with that id', 'unknown_key');
      await recordAdminKeyAudit(tx.audit, tenantId, 'signing_key.remove', kid);
    });
    res.status(204).end();
  });

  return router;
}
