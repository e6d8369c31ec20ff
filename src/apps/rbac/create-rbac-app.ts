import type { Express, RequestHandler } from 'express';
import type { Authorizer } from '../../authorizer';
import { BadRequestError, createApp, finishApp, OPENAPI_PATH, serveOpenApi } from '../../http';
import { RBAC_OPENAPI } from './rbac-openapi';
import { requirePermission } from '@outpost/express-authz';
import type { Logger } from '../../observability';
import { serveProbes } from '../app-health';

/** The methods the RBAC sample serves on `/resource/:name`; each is a Cedar action. */
export const RESOURCE_METHODS = ['GET', 'PUT', 'POST', 'DELETE'] as const;

const RESOURCE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

export interface RbacAppDeps {
  /** Access-token middleware: sets `req.auth` or rejects (401/400/503). */
  readonly authenticate: RequestHandler;
  readonly authorizer: Authorizer;
  /** Name of the policy the routes are evaluated under (`rbac`, `rebac`, …). */
  readonly policyName: string;
  readonly logger: Logger;
}

/**
 * The simple RBAC sample (docs/service-interface.md §4.4): `GET|PUT|POST|DELETE /resource/:name`
 * answers `Hello from <METHOD> /resource/<name>` when the policy allows the caller.
 *
 *   curl -i -X DELETE http://localhost:3001/resource/mega-seed \
 *     -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)"
 */
export function createRbacApp(deps: RbacAppDeps): Express {
  const app = createApp(deps.logger);
  app.set('etag', false);

  const checkName: RequestHandler = (req, _res, next) => {
    if (!RESOURCE_NAME.test(String(req.params.name))) {
      throw new BadRequestError('resource name must be 1-128 letters, digits, dots, dashes or underscores');
    }
    next();
  };

  // One route for the four methods, first on the app: Express matches the path once per
  // request instead of once per method, and walks no other route before it.
  const resource = app.route('/resource/:name');
  for (const method of RESOURCE_METHODS) {
    const allow = requirePermission(
      deps.authorizer,
      { policy: deps.policyName, action: method, resource: (req) => ({ type: 'Resource', id: String(req.params.name) }) },
      { forwardErrors: true }, // this app's error middleware answers and logs a 503
    );
    resource[method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'](deps.authenticate, checkName, allow, (req, res) => {
      res.type('text/plain').send(`Hello from ${method} /resource/${String(req.params.name)}`);
    });
  }

  serveProbes(app, deps.authorizer);
  app.get(OPENAPI_PATH, serveOpenApi(RBAC_OPENAPI));

  return finishApp(app, deps.logger, 'api');
}
