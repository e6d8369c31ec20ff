import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { basicCredential, decodeBasicPair, httpError, type HttpError } from '../http';
import type { ControlPlaneStore } from './control-plane-store';
import type { TenantKeyKind } from './tenant-keys';

/** Header naming the tenant (docs/service-interface.md §4.2, §5). */
export const TENANT_HEADER = 'service-tenant-id';

/** The one 401 for every tenant-credential failure: it never says which part was wrong. */
export function tenantUnauthorized(): HttpError {
  return httpError('unauthorized', 'missing or invalid tenant credentials', { headers: { 'WWW-Authenticate': 'Basic realm="outpost"' } });
}

/**
 * Authenticates a tenant API call: `service-tenant-id: <tenant>` plus
 * `Authorization: basic <key>`, where the credential is either the raw key (as
 * docs/service-interface.md §5 shows) or RFC 7617 `base64("<tenant>:<key>")` whose
 * tenant part must equal the header. Keys are compared in constant time. Resolves to the
 * tenant id; rejects with {@link tenantUnauthorized}.
 */
export async function authenticateTenant(store: ControlPlaneStore, kind: TenantKeyKind, headers: IncomingHttpHeaders): Promise<string> {
  // Node joins a repeated header of this kind into one string, as Express's req.get read it.
  const named = headers[TENANT_HEADER];
  const tenantId = typeof named === 'string' ? named.trim() : undefined;
  const credential = basicCredential(headers.authorization);
  if (!tenantId || !credential) throw tenantUnauthorized();
  // Both readings of the credential against one stored hash, current as of this call: a key
  // rotated on any node is refused by every node at once (docs/architecture.md, "Tenant keys").
  const pair = decodeBasicPair(credential);
  const candidates = pair !== undefined && pair.user === tenantId ? [credential, pair.password] : [credential];
  if (!(await store.verifyTenantKey(tenantId, kind, candidates))) throw tenantUnauthorized();
  return tenantId;
}

/** {@link authenticateTenant} as Express middleware: on success `res.locals.tenantId` holds the tenant id. */
export function requireTenantKey(store: ControlPlaneStore, kind: TenantKeyKind): RequestHandler {
  return async function requireTenantKeyMiddleware(req, res, next) {
    res.locals.tenantId = await authenticateTenant(store, kind, req.headers);
    next();
  };
}

/** The tenant id set by {@link requireTenantKey}. */
export function authenticatedTenant(locals: Record<string, unknown>): string {
  const tenantId = locals.tenantId;
  if (typeof tenantId !== 'string') throw new Error('requireTenantKey must run before this handler');
  return tenantId;
}
