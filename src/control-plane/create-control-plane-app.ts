import type { RequestListener } from 'node:http';
import type { Router } from 'express';
import { serveBareJsonRoutes, tenantJsonRoutes } from '../fast-path';
import { createApp, createErrorResponder, finishAppWith, refuseWriteQuery, jsonBody } from '../http';
import type { Logger } from '../observability';
import { POLICY_IMAGE_LIMITS } from '../policy';
import type { Relay } from '../relay';
import { storageErrorTranslator } from '../sql';
import { adminDirectoryRoutes } from './admin-directory-routes';
import { adminPolicyRoutes, type DecisionSampler } from './admin-policy-routes';
import { adminSettingsRoutes } from './admin-settings-routes';
import type { ControlPlaneStore } from './control-plane-store';
import { edgeRoutes } from './edge-routes';
import { requirePushCheck, type ImagePushCheck } from './image-push-check';
import { requireConnection } from './require-connection';
import { authenticateTenant, requireTenantKey } from './require-tenant-key';

/**
 * Body limits: a policy image's text is capped by `POLICY_IMAGE_LIMITS` (checked after
 * parsing, 413); the JSON around it gets room for escaping. Everything else is small.
 */
export const BODY_LIMITS = Object.freeze({ policyImage: 2 * POLICY_IMAGE_LIMITS.maxTotalBytes + 16 * 1024, other: 16 * 1024 });

/**
 * A platform area plugged into the control plane's app (decision records' admin listing,
 * src/decision-store; image-signing keys, src/signing-keys; the console, src/console;
 * `/openapi.json`, src/openapi): its router, mounted after the control plane's own routes and
 * the relay's. The control plane imports none of them; the process that runs it
 * (src/control-plane-server) hands them over.
 */
export interface ControlPlaneExtension {
  readonly router: Router;
}

/** Dependencies of {@link createControlPlaneApp}. */
export interface ControlPlaneAppDeps {
  readonly store: ControlPlaneStore;
  readonly logger: Logger;
  /**
   * Asked of every pushed image before it is stored (signed images: `signedImagePushCheck()`,
   * src/signing-keys). Required: an app built without one throws rather than take unsigned
   * pushes for a tenant with signing keys.
   */
  readonly pushCheck: ImagePushCheck;
  /** Extra routers (the relay's management API), mounted before the final 404. */
  readonly routers?: readonly Router[];
  /** The platform's extensions, mounted after `routers`, in their order. */
  readonly extensions?: readonly ControlPlaneExtension[];
  /**
   * Opt-in (RELAY_BARE_EXEC=on): the relay's exec and its extensions' commands (broadcast), whose plain requests are then
   * served on bare `node:http` ahead of the app (src/fast-path), with the answers of their
   * Express routes in the management router, which answers the others. Without it (the
   * default) those routes are the router's alone: one Express route per request.
   */
  readonly bareExec?: Pick<Relay, 'commandRoutes'>;
  /** The relay's decision samples; with it the admin API serves the dry run of a candidate image. */
  readonly sampleDecisions?: DecisionSampler;
}

/**
 * The control plane's HTTP app: `GET /healthz`, the admin API (policy registry, its pushes
 * checked by `pushCheck`, central directory and the tenant's settings, admin key), the edge download API (connection credentials), then
 * any extra routers and the extensions, with the opt-in bare exec in front when asked for. Starts nothing; the
 * relay attaches its WebSocket to the server the caller creates.
 */
export function createControlPlaneApp(deps: ControlPlaneAppDeps): RequestListener {
  const pushCheck = requirePushCheck(deps.pushCheck, 'createControlPlaneApp');
  const app = createApp(deps.logger);
  // ETags are set on purpose (digests, revisions), never derived from bodies.
  app.set('etag', false);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Outpost's own APIs below (admin, edge; the console refuses the same itself): a write takes its input
  // from the body. The relay's management API keeps the seed's contract as it stands (a query string is ignored there).
  app.use(['/api/v2/admin', '/api/v2/edge'], refuseWriteQuery());

  // Credentials first, body second: an unauthenticated caller gets 401 and never makes the
  // server read or parse a body; each route group parses with its own size limit.
  const admin = requireTenantKey(deps.store, 'admin');
  app.use('/api/v2/admin/policies', admin, jsonBody(BODY_LIMITS.policyImage), adminPolicyRoutes(deps.store, pushCheck, deps.sampleDecisions));
  app.use('/api/v2/admin/directory', admin, jsonBody(BODY_LIMITS.other), adminDirectoryRoutes(deps.store));
  app.use('/api/v2/admin/settings', admin, jsonBody(BODY_LIMITS.other), adminSettingsRoutes(deps.store));
  app.use('/api/v2/edge', requireConnection(deps.store), edgeRoutes(deps.store));

  for (const router of deps.routers ?? []) app.use(router);
  for (const extension of deps.extensions ?? []) app.use(extension.router);
  // Its store and the relay's are SQL: a busy or unreachable database is a 503, a full one a 507.
  const answerError = createErrorResponder(deps.logger, 'api', { translators: [storageErrorTranslator] });
  finishAppWith(app, 'api', answerError);
  if (!deps.bareExec) return app;
  // The Discovery API key is checked against the store as of each call (a rotated key is refused
  // on every node at once), before any byte of the body. What this saves: BENCHMARKS.md, "One path per request".
  const routes = tenantJsonRoutes(deps.bareExec.commandRoutes, (headers) => authenticateTenant(deps.store, 'discovery', headers));
  return serveBareJsonRoutes(routes, app, answerError, deps.logger);
}
