import { Router } from 'express';
import { HttpError, NotFoundError, parseBody, parseParam } from '../http';
import { POLICY_NAME_PATTERN } from '../decision-protocol';
import type { ControlPlaneStore } from './control-plane-store';
import { LATEST_TAG, MAX_IMAGES_PER_TENANT } from './policy-image-repository';
import { authenticatedTenant } from './require-tenant-key';
import { pushBodySchema, validatePushedImage } from './validate-pushed-image';

/**
 * The policy registry's admin API (admin key):
 *
 *   curl -X POST {relay_url}/api/v2/admin/policies/rbac -H 'content-type: application/json' \
 *     -H 'service-tenant-id: <TENANT_ID>' -H 'Authorization: basic <ADMIN_API_KEY>' \
 *     -d '{"files":{"manifest.json":"…","schema.cedarschema":"…","rbac.cedar":"…"}}'
 *   curl {relay_url}/api/v2/admin/policies/rbac -H 'service-tenant-id: …' -H 'Authorization: basic …'
 */
export function adminPolicyRoutes(store: ControlPlaneStore): Router {
  const router = Router();

  router.post('/:name', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const name = parseParam(req.params.name, POLICY_NAME_PATTERN, 'policy name');
    const keys = store.signingKeys.list(tenantId).map((k) => k.jwk);
    const { image, signature } = await validatePushedImage(name, parseBody(pushBodySchema, req.body), keys);
    const pushed = store.images.push(tenantId, image, signature);
    if (pushed.quotaExceeded) {
      throw new HttpError(409, 'quota_exceeded', `this tenant already stores ${MAX_IMAGES_PER_TENANT} tagged policy images`);
    }
    res.status(pushed.created ? 201 : 200).json({ name, digest: pushed.digest, tag: LATEST_TAG });
  });

  router.get('/:name', (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const name = parseParam(req.params.name, POLICY_NAME_PATTERN, 'policy name');
    const images = store.images.versions(tenantId, name);
    if (images.length === 0) throw new NotFoundError(`no policy named ${name}`, 'unknown_policy');
    res.json({
      name,
      latest: store.images.taggedDigest(tenantId, name) ?? null,
      images: images.map((i) => ({ digest: i.digest, created_at: new Date(i.createdAt).toISOString() })),
    });
  });

  return router;
}
