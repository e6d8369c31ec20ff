import express, { type Router } from 'express';
import type { LocalAuthorizer } from '../decision';
import { BadRequestError, ServiceUnavailableError, parseBody } from '../http';
import type { Logger } from '../observability';
import type { EdgeMetrics } from './edge-metrics';
import type { EdgeState } from './edge-state';
import { isRequestSchema, splitPolicyPath, type IsRequest } from '../decision-protocol';
import type { VerifyJwtIdentity } from './verify-identity';

/** The decision Outpost's policies answer; the only one `decisions` may ask for. */
const ALLOWED = 'allowed';

/**
 * Finds the directory user an identity names: `SUB` is the user id (an e-mail address is
 * resolved too, as Topaz resolves identities); `JWT` is an access token whose `sub` is
 * the user id; `NONE` is anonymous (`undefined`).
 */
async function resolvePrincipal(body: IsRequest, state: EdgeState, verifyJwt: VerifyJwtIdentity): Promise<string | undefined> {
  const { type, identity } = body.identity_context;
  if (type === 'IDENTITY_TYPE_NONE') return undefined;
  if (!identity) throw new BadRequestError(`identity_context.identity is required for ${type}`, 'invalid_identity');
  if (type === 'IDENTITY_TYPE_JWT') return verifyJwt(identity);
  const byEmail = state.directory?.users.find((u) => u.email === identity);
  return byEmail?.id ?? identity;
}

/**
 * `POST /api/v2/authz/is`. Order of checks: body shape (400), readiness (503), policy
 * name (400 `unknown_policy`), identity (400 / 503), then the decision. Anonymous callers
 * are never allowed: Outpost's policies speak only about directory users. One log line
 * per decision — who, what, the answer and the data it came from; never the token.
 */
export function createAuthzRouter(deps: {
  state: EdgeState;
  authorizer: LocalAuthorizer;
  verifyJwt: VerifyJwtIdentity;
  metrics: EdgeMetrics;
  logger: Logger;
}): Router {
  const { state, authorizer, verifyJwt, metrics, logger } = deps;
  const router = express.Router();

  router.post('/api/v2/authz/is', express.json({ limit: '16kb' }), async (req, res) => {
    const body = parseBody(isRequestSchema, req.body, { what: 'decision request' });
    const policy = state.policy;
    const directory = state.directory;
    if (!policy || !directory) throw new ServiceUnavailableError('no policy image or directory loaded yet', 'not_ready');
    const path = body.policy_context.path;
    const { policy: policyName, action } = splitPolicyPath(path);
    if (policyName !== policy.image.name) {
      throw new BadRequestError(`this edge serves policy "${policy.image.name}", not "${policyName}"`, 'unknown_policy');
    }
    const unknown = body.policy_context.decisions.find((d) => d !== ALLOWED);
    if (unknown !== undefined) throw new BadRequestError(`unknown decision "${unknown.slice(0, 64)}"`, 'unknown_decision');

    const principal = await resolvePrincipal(body, state, verifyJwt);
    const { type, id, ...attributes } = body.resource_context;
    const decision =
      principal === undefined
        ? undefined
        : await authorizer.authorize({ principal, action, resource: { type, id, attributes }, policyPath: path });
    const allowed = decision?.allowed ?? false;

    metrics.decision(allowed);
    logger.info(
      {
        req_id: req.id,
        principal: principal ?? null,
        identity_type: body.identity_context.type,
        path,
        resource: { type, id },
        decision: allowed,
        // What the decision was made from (read by the authorizer, so exact even across a swap).
        policy_digest: decision?.policyDigest ?? policy.image.digest,
        directory_revision: decision?.directoryRevision ?? directory.revision,
      },
      'decision',
    );
    res.json({ decisions: body.policy_context.decisions.map(() => ({ decision: ALLOWED, is: allowed })) });
  });

  return router;
}

