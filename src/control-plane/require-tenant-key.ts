import type { RequestHandler } from 'express';
import { basicCredential, decodeBasicPair, HttpError } from '../http';
import type { ControlPlaneStore } from './control-plane-store';
import type { TenantKeyKind } from './tenant-repository';

/** Header naming the tenant (docs/service-interface.md §4.2, §5). */
export const TENANT_HEADER = 'service-tenant-id';

/** The one 401 for every tenant-credential failure: it never says which part was wrong. */
export function tenantUnauthorized(): HttpError {
  return new HttpError(401, 'unauthorized', 'missing or invalid tenant credentials', {
    'WWW-Authenticate': 'Basic realm="outpost"',
  });
}

/**
 * Authenticates a tenant API call: `service-tenant-id: <tenant>` plus
 * `Authorization: basic <key>`, where the credential is either the raw key (as
 * docs/service-interface.md §5 shows) or RFC 7617 `base64("<tenant>:<key>")` whose
 * tenant part must equal the header. Keys are compared in constant time; on success
 * `res.locals.tenantId` holds the tenant id.
 */
export function requireTenantKey(store: ControlPlaneStore, kind: TenantKeyKind): RequestHandler {
  return async function requireTenantKeyMiddleware(req, res, next) {
    const tenantId = req.get(TENANT_HEADER)?.trim();
    const credential = basicCredential(req.get('authorization'));
    if (!tenantId || !credential) throw tenantUnauthorized();
    // Both readings of the credential against one read of the stored hash. The hash is read
    // on every call, never cached, so a key rotated on one node is refused on every node at
    // once (docs/architecture.md, "Cluster mode: Redis keys and channels").
    const pair = decodeBasicPair(credential);
    const candidates = pair !== undefined && pair.user === tenantId ? [credential, pair.password] : [credential];
    if (!(await store.verifyTenantKey(tenantId, kind, candidates))) throw tenantUnauthorized();
    res.locals.tenantId = tenantId;
    next();
  };
}

/** The tenant id set by {@link requireTenantKey}. */
export function authenticatedTenant(locals: Record<string, unknown>): string {
  const tenantId = locals.tenantId;
  if (typeof tenantId !== 'string') throw new Error('requireTenantKey must run before this handler');
  return tenantId;
}
