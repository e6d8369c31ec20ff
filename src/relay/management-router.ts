import express from 'express';
import type { RequestHandler, Router } from 'express';
import { HttpError } from '../http';
import type { CommandName, EdgeStatus } from '../relay-protocol';
import { parseExecRequest } from './parse-exec-request';
import type { Registration, RegistrationStore } from './registration-store';

/** Service interface §4.3. */
export const INSTANCE_REGISTRATIONS_PATH = '/api/v2/management/control_plane/instance_registrations';
/** Service interface §4.2. */
export const EXEC_PATH = '/api/v2/management/control_plane/exec';
/** An exec body is a few dozen bytes; anything near this limit is not one (413). */
export const EXEC_BODY_LIMIT = '4kb';

/** Dependencies of {@link createManagementRouter}. */
export interface ManagementRouterDeps {
  /** The tenant's Discovery API key check; sets `res.locals.tenantId`. */
  readonly requireDiscoveryKey: RequestHandler;
  readonly registrations: RegistrationStore;
  /** Whether this relay holds a live socket for the instance. */
  readonly isConnected: (instanceId: string) => boolean;
  readonly exec: (tenantId: string, instanceId: string, command: CommandName) => Promise<EdgeStatus>;
}

/** One element of the §2.5 `result` array; `info` goes beyond `connection_id` as ARCHITECTURE lists. */
function toView(r: Registration, connected: boolean) {
  return {
    id: r.instanceId,
    info: {
      connection_id: r.connectionId,
      hostname: r.hostname,
      version: r.version,
      policy_name: r.policyName,
      policy_digest: r.policyDigest,
      directory_revision: r.directoryRevision,
      connected,
      connected_at: new Date(r.connectedAt).toISOString(),
      last_seen: new Date(r.lastSeen).toISOString(),
    },
  };
}

/**
 * The relay management API, with path-absolute routes to mount on the control plane app.
 * Both routes sit behind the tenant's Discovery API key (§5) and only ever see the
 * caller's own tenant; the tenant id comes from `requireTenantKey`, never from the body.
 */
export function createManagementRouter(deps: ManagementRouterDeps): Router {
  const router = express.Router();
  const discoveryKey = deps.requireDiscoveryKey;

  router.get(INSTANCE_REGISTRATIONS_PATH, discoveryKey, function listInstanceRegistrations(_req, res) {
    const tenantId = res.locals.tenantId as string;
    res.set('Cache-Control', 'no-store').json({ result: deps.registrations.listForTenant(tenantId).map((r) => toView(r, deps.isConnected(r.instanceId))) });
  });

  router.post(
    EXEC_PATH,
    discoveryKey,
    function requireJson(req, _res, next) {
      // A malformed body is a 400 (ARCHITECTURE: "not JSON"). req.is() is null when there is
      // no body at all; parseExecRequest reports that as 400 too.
      if (req.is('application/json') === false) {
        throw new HttpError(400, 'bad_request', 'content-type must be application/json');
      }
      next();
    },
    express.json({ limit: EXEC_BODY_LIMIT }),
    async function execCommand(req, res) {
      const { id, command } = parseExecRequest(req.body);
      await deps.exec(res.locals.tenantId as string, id, command);
      res.set('Cache-Control', 'no-store').json({ result: {} });
    },
  );
  return router;
}
