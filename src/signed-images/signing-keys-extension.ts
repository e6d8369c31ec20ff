import express from 'express';
import { BODY_LIMITS, requireTenantKey, type ControlPlaneExtension, type ControlPlaneStore } from '../control-plane';
import { jsonBody } from '../http';
import { adminSigningKeyRoutes } from './admin-signing-key-routes';

/**
 * The tenant's image-signing keys plugged into the control plane (`createControlPlaneApp`'s
 * extensions): `/api/v2/admin/signing-keys` behind the tenant's admin key, its body parsed
 * once the key is checked (docs/reference/api.md). Its routes are in the control plane's own
 * `/openapi.json` route table (src/control-plane/control-plane-openapi.ts) as they always were.
 */
export function signingKeysExtension(store: ControlPlaneStore): ControlPlaneExtension {
  const router = express.Router().use('/api/v2/admin/signing-keys', requireTenantKey(store, 'admin'), jsonBody(BODY_LIMITS.other), adminSigningKeyRoutes(store));
  return { router, routes: [] };
}
