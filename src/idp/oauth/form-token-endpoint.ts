import { Router } from 'express';
import { OAuthError, formBody } from '../../http';
import { TOKEN_PATH } from '../token-endpoint';
import { authorizationCodeGrant } from './grant-authorization-code';
import { passwordGrant } from './grant-password';
import { refreshTokenGrant } from './grant-refresh-token';
import { readForm } from './read-form';
import type { GrantDeps, GrantHandler } from './token-grant';

/** The grants the form-encoded token endpoint implements; discovery lists exactly these. */
export const GRANT_HANDLERS: Readonly<Record<string, GrantHandler>> = Object.freeze({
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  password: passwordGrant,
});

/**
 * `POST /api/v1/idp/token` with `application/x-www-form-urlencoded` (RFC 6749 §3.2): picks
 * the grant by `grant_type`. Any other content type goes on to the JSON endpoint, which
 * answers exactly as the seed contract says.
 */
export function formTokenEndpoint(deps: GrantDeps): Router {
  const router = Router();
  router.post(
    TOKEN_PATH,
    function onlyForms(req, _res, next) {
      next(req.is('application/x-www-form-urlencoded') ? undefined : 'router');
    },
    formBody(4 * 1024),
    async function token(req, res) {
      // RFC 6749 §5.1: token responses must not be cached.
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
      if (req.headers.authorization) {
        throw new OAuthError(401, 'invalid_client', 'only public clients (token_endpoint_auth_method none) are registered');
      }
      const params = readForm(req.body);
      const grantType = params.required('grant_type');
      const handler = Object.hasOwn(GRANT_HANDLERS, grantType) ? GRANT_HANDLERS[grantType] : undefined;
      if (!handler) throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
      res.json(await handler({ params, requestId: String(req.id), address: req.socket.remoteAddress }, deps));
    },
  );
  return router;
}
