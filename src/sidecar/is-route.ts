import { BadRequestError, parseBody } from '../http';
import { explainDecision } from '../policy';
import { unredactedLogger, type Logger } from '../observability';
import { isFlatValue, isRequestSchema, splitPolicyPath, withProtoFieldNames, type IsRequest } from '../decision-protocol';
import { resolveUserId, type DirectoryData } from '../directory';
import { type EdgeRuntime, readDemand, requireReady, stateUsedHeaders, type DecisionRoute, reasonsOf, wantsReasons } from '../edge';
import type { VerifyJwtIdentity } from './verify-identity';

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
 * What `resource_context` says besides the resource's `type` and `id`, each value in one
 * place: a flat one as an attribute of the resource (the policy reads `resource.owner`; a
 * wrong type is 400 `invalid_property`, as on AuthZEN), a nested one — object, array, null —
 * in the Cedar context's `resource` record, objects as records and arrays as sets (the policy
 * reads `context.resource.properties.department` where its action declares it; Cedar has no
 * null, so a null fits no declared type). No context when nothing is nested, so a flat body
 * is the same question it always was.
 */
function resourceContextOf(resourceContext: IsRequest['resource_context']): {
  attributes: Record<string, string | number | boolean>;
  context: { resource: Record<string, unknown> } | undefined;
} {
  const attributes: Record<string, string | number | boolean> = {};
  let said: Record<string, unknown> | undefined;
  for (const name in resourceContext) {
    if (name === 'type' || name === 'id') continue;
    const value = resourceContext[name];
    if (isFlatValue(value)) attributes[name] = value;
    else (said ??= {})[name] = value;
  }
  return { attributes, context: said && { resource: said } };
}

/**
 * `POST /api/v2/authz/is`: Topaz's REST `Is` call, its field names in snake_case or
 * lowerCamelCase as protojson takes them (Topaz's gRPC API is not served). Order of checks: body shape (400),
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
      // Field names as protojson takes them (snake_case or lowerCamelCase), then the schema.
      const named = withProtoFieldNames(input.body);
      if ('duplicate' in named) throw new BadRequestError(`${named.duplicate[0]} and ${named.duplicate[1]} name the same field; send one`);
      const body = parseBody(isRequestSchema, named.body, { what: 'decision request' });
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
      const { attributes, context } = resourceContextOf(body.resource_context);
      const request = { principal: principal ?? '', action, resource: { type, id, attributes }, policyPath: path, ...(context ? { context } : {}) };
      const started = performance.now();
      const decision = principal === undefined ? undefined : runtime.authorizer.decideNow(request);
      if (decision !== undefined) runtime.recordDecision(request, decision, input.id, performance.now() - started);
      const allowed = decision?.allowed ?? false;
      // What the decision was made from (read by the authorizer, so exact even across a swap).
      const used = { policyDigest: decision?.policyDigest ?? policy.image.digest, directoryRevision: decision?.directoryRevision ?? directory.revision };

      runtime.answered(allowed);
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
