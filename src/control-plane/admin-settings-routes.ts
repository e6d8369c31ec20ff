import { Router } from 'express';
import { z } from 'zod';
import { parseBody } from '../http';
import { recordAdminKeyAudit } from './audit-repository';
import type { ControlPlaneStore } from './control-plane-store';
import { authenticatedTenant } from './require-tenant-key';

/** The tenant's settings as the admin API shows and takes them. */
export const tenantSettingsSchema = z.strictObject({
  push_on_change: z.boolean().describe('a directory change or a policy push is broadcast to the edges by itself (docs/reference/api.md, "Push on change")'),
});

/**
 * The tenant's settings (admin key): today one, push on change. A change is written to the
 * tenant's audit log as the admin key's (`settings.push_on_change`, target `on` or `off`).
 *
 *   curl -X PUT {relay_url}/api/v2/admin/settings -H 'content-type: application/json' \
 *     -H 'service-tenant-id: <TENANT_ID>' -H 'Authorization: basic <ADMIN_API_KEY>' \
 *     -d '{"push_on_change": true}'
 */
export function adminSettingsRoutes(store: ControlPlaneStore): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    res.json({ push_on_change: await store.tenants.pushOnChange(authenticatedTenant(res.locals)) });
  });

  router.put('/', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const { push_on_change: on } = parseBody(tenantSettingsSchema, req.body);
    await store.transaction(async (tx) => {
      await tx.tenants.setPushOnChange(tenantId, on);
      await recordAdminKeyAudit(tx.audit, tenantId, 'settings.push_on_change', on ? 'on' : 'off');
    });
    res.json({ push_on_change: on });
  });

  return router;
}
