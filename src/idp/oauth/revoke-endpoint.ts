import { Router } from 'express';
import { OAuthError, formBody } from '../../http';
import type { GrantStore } from './grant-store';
import { REVOKE_PATH } from './oauth-paths';
import { readForm } from './read-form';
import type { RegisteredClients } from './registered-clients';

/**
 * `POST /revoke` (RFC 7009): revokes the refresh token's whole family. Access tokens are
 * self-contained JWTs and expire on their own (`revocation_endpoint` says so by accepting
 * only `refresh_token` hints; others are answered 200 and ignored, §2.2). Unknown tokens
 * also get 200, so the answer reveals nothing (§2.2).
 */
export function revokeEndpoint(deps: { readonly grants: GrantStore; readonly clients: RegisteredClients }): Router {
  const router = Router();
  router.post(REVOKE_PATH, formBody(4 * 1024), function revoke(req, res) {
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    if (!req.is('application/x-www-form-urlencoded')) {
      throw new OAuthError(400, 'invalid_request', 'the request body must be application/x-www-form-urlencoded');
    }
    const params = readForm(req.body);
    const client = deps.clients.find(params.optional('client_id'));
    if (!client) throw new OAuthError(401, 'invalid_client', 'unknown client_id');
    deps.grants.revoke(params.required('token'), client.clientId);
    res.status(200).end();
  });
  return router;
}
