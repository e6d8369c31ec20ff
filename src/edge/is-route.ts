import { BadRequestError, parseBody } from '../http';
import { explainDecision } from '../policy';
import { unredactedLogger, type Logger } from '../observability';
import { isRequestSchema, quickIsRequest, splitPolicyPath, type IsRequest } from '../decision-protocol';
import type { DirectoryData } from '../directory';
import type { EdgeRuntime } from './create-edge-runtime';
import { readDemand, requireReady, resolveUserId, stateUsedHeaders, type DecisionRoute } from './decision-support';
import type { VerifyJwtIdentity } from './verify-identity';
import { reasonsOf, wantsReasons } from './explain-reasons';

/** The decision Outpost's policies answer; the only one `decisions` may ask for. */
const ALLOWED = 'allowed';

/**
 * Finds the directory user an identity names: `SUB` is the user id or e-mail address;
 * `JWT` is an access token whose `sub` is the user id; `NONE` is anonymous (`undefined`).
 */
async function resolvePrincipal(body: IsRequest, directory: DirectoryData, verifyJwt: VerifyJwtIdentity): Promise<string | undefined> {
  const { type, identity } = body.identity_context;
  if (type === 'IDENTITY_TYPE_NONE') return undefined;
  if (!identity) throw new BadRequestError(`identity_context.identity is required for ${type}`, 'invalid_identity');
  if (type === 'IDENTITY_TYPE_JWT') return verifyJwt(identity);
  return resolveUserId(directory, identity);
}

/**
 * `POST /api/v2/authz/is` (the Topaz shape). Order of checks: body shape (400),
 * freshness (the edge syncs first if the caller asked for newer state; 409/503),
 * readiness (503), policy name (400 `unknown_policy`), identity (400 / 503), then the
 * decision. Anonymous callers are never allowed: Outpost's policies speak only about
 * directory users. One log line per decision — who, what, the answer, the determining
 * policies and the state it came from; never the token. With `Outpost-Explain: reasons` each
 * answer carries its reasons (docs/reference/api.md, "Reasons").
 */
export function createIsRoute(deps: { runtime: EdgeRuntime; verifyJwt: VerifyJwtIdentity; logger: Logger }): DecisionRoute {
  const { runtime, verifyJwt } = deps;
  // Every field of a decision line is the edge's own choice, never the token: no redaction.
  const logger = unredactedLogger(deps.logger);
  return {
    path: '/api/v2/authz/is',
    limitBytes: 16 * 1024,
    async handle(input) {
      // The hand check for the plain body; zod for the rest and for every error message.
      const body = quickIsRequest(input.body) ?? parseBody(isRequestSchema, input.body, { what: 'decision request' });
      const explain = wantsReasons(input);
      await runtime.freshness.ensure(readDemand(input, body));
      const { policy, directory } = requireReady(runtime.state);
      const path = body.policy_context.path;
      const { policy: policyName, action } = splitPolicyPath(path);
      if (policyName !== policy.image.name) {
        throw new BadRequestError(`this edge serves policy "${policy.image.name}", not "${policyName}"`, 'unknown_policy');
      }
      const unknown = body.policy_context.decisions.find((d) => d !== ALLOWED);
      if (unknown !== undefined) throw new BadRequestError(`unknown decision "${unknown.slice(0, 64)}"`, 'unknown_decision');

      const principal = await resolvePrincipal(body, directory, verifyJwt);
      const { type, id } = body.resource_context;
      const attributes: Record<string, string | number | boolean> = {};
      for (const name in body.resource_context) if (name !== 'type' && name !== 'id') attributes[name] = body.resource_context[name] as string | number | boolean;
      const request = { principal: principal ?? '', action, resource: { type, id, attributes }, policyPath: path };
      const started = performance.now();
      const decision = principal === undefined ? undefined : runtime.authorizer.decideNow(request);
      if (decision !== undefined) runtime.recordDecision(request, decision, input.id, performance.now() - started);
      const allowed = decision?.allowed ?? false;
      // What the decision was made from (read by the authorizer, so exact even across a swap).
      const used = { policyDigest: decision?.policyDigest ?? policy.image.digest, directoryRevision: decision?.directoryRevision ?? directory.revision };

      runtime.metrics.decision(allowed);
      logger.info(
        {
          req_id: input.id,
          principal: principal ?? null,
          identity_type: body.identity_context.type,
          path,
          resource: { type, id },
          decision: allowed,
          reasons: decision?.reasons ?? [],
          policy_digest: used.policyDigest,
          directory_revision: used.directoryRevision,
        },
        'decision',
      );
      // An anonymous caller is denied before any policy is asked: no policy permits it either.
      const reasons = !explain ? undefined : decision ? reasonsOf(decision, policy) : explainDecision({}, { allowed: false, reasons: [] });
      const answer = reasons ? { decision: ALLOWED, is: allowed, reasons } : { decision: ALLOWED, is: allowed };
      return { headers: stateUsedHeaders(used), body: { decisions: body.policy_context.decisions.map(() => answer) } };
    },
  };
}
