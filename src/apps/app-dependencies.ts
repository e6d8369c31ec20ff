import type { RequestHandler } from 'express';
import type { Config } from '../config';
import type { DirectoryData } from '../directory';
import { createEdgeAuthorizer, openLocalAuthorizer, type Authorizer } from '../authorizer';
import { requireAccessToken } from '../middleware';

/**
 * The access-token middleware every sample app uses: tokens from our IdP, for the sample
 * API's audience, keys from the IdP's JWKS at the standard OIDC discovery location.
 */
export function accessTokenMiddleware(config: Config): RequestHandler {
  return requireAccessToken({
    issuer: config.idp.issuer,
    audience: config.idp.apiAudience,
    jwksUri: `${config.idp.url}/.well-known/jwks.json`,
    clientId: config.idp.clientId,
    clockTolerance: config.apps.clockTolerance,
  });
}

/**
 * The configured authorizer: `edge` asks the edge authorizer over HTTP (the default stack),
 * `local` evaluates `policies/<policyName>` in-process against the seed directory.
 */
export function openAppAuthorizer(
  config: Config,
  kind: 'local' | 'edge',
  policyName: string,
  directory: DirectoryData,
): Authorizer {
  if (kind === 'edge') return createEdgeAuthorizer({ url: config.edge.url });
  return openLocalAuthorizer({ policiesDir: config.policiesDir, policyName, directory });
}
