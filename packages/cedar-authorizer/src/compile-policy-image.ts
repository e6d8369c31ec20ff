import type { AuthorizationAnswer, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { toCedarContext, type ContextShape } from './cedar-context';
import { CedarEngineError, withCedar, type CedarBindings } from './cedar-engine';
import { checkImage, fail, guarded, schemaProblems } from './check-image';
import { qualifyType, type PolicySchemaInfo } from './describe-schema';
import { PolicyEvaluationError } from './policy-errors';
import type { PolicyImage } from './policy-image';
import { acquirePreparsed, releasePreparsed } from './preparsed-registry';
import { policiesReadResource } from './reads-resource';
import { describeCedarError } from './source-lines';
import type { CompiledPolicy, PolicyAnswer, PolicyRequest } from './compiled-policy';

/**
 * Checks the text limits, parses the schema and policies of an image, validates the
 * policies against the schema (Cedar strict mode), and pre-parses both once under the
 * image digest. Throws {@link PolicyValidationError} listing each problem as
 * `<file>:<line>: …` — also when Cedar itself fails on the text (the engine is reset).
 */
export function compilePolicyImage(image: PolicyImage): CompiledPolicy {
  return guarded(image, () => {
    const { schemaText, schemaJson, description, schema, contexts, staticPolicies } = checkImage(image);
    const preparsed = acquirePreparsed(image.digest, { staticPolicies }, schemaJson);
    if (typeof preparsed !== 'string') fail(image, schemaProblems(schemaText, () => preparsed));
    return createCompiledPolicy(image, description, schema, contexts, staticPolicies, preparsed);
  });
}

/**
 * The checks of {@link compilePolicyImage} without pre-parsing: for a registry that
 * stores images and never evaluates them (a quarter less Cedar work, nothing to release).
 */
export function validatePolicyImage(image: PolicyImage): void {
  guarded(image, () => checkImage(image));
}

/** One stateful evaluation; undefined when the engine faulted (and was replaced). */
function evaluate(call: Parameters<CedarBindings['statefulIsAuthorized']>[0]): AuthorizationAnswer | undefined {
  try {
    return withCedar('evaluation', (cedar) => cedar.statefulIsAuthorized(call));
  } catch (err) {
    if (err instanceof CedarEngineError) return undefined;
    throw err;
  }
}

/** The context of an action the schema declares none for: every attribute sent is left out. */
const NO_CONTEXT: ContextShape = { kind: 'record', attributes: new Map(), open: false };

/** How Cedar words a failure of the entities (not of the request) against the schema. */
const ENTITY_FAILURE = /entity deserialization|does not conform to the schema/;

function createCompiledPolicy(
  image: PolicyImage,
  description: string,
  schema: PolicySchemaInfo,
  contexts: ReadonlyMap<string, ContextShape>,
  staticPolicies: Readonly<Record<string, string>>,
  preparsedId: string,
): CompiledPolicy {
  const actionType = qualifyType(schema.namespace, 'Action');
  let released = false;
  // Off the compile (and so off a discovery's confirmation): the first decision works it out.
  let readsResource: boolean | undefined;
  return Object.freeze({
    name: image.name,
    digest: image.digest,
    description,
    schema,
    policyIds: Object.freeze(Object.keys(staticPolicies)),
    get readsResource(): boolean {
      readsResource ??= policiesReadResource(Object.values(staticPolicies));
      return readsResource;
    },
    contextKey(action: string, context: unknown): string {
      const shaped = toCedarContext(contexts.get(action) ?? NO_CONTEXT, context);
      if (typeof shaped === 'string') return `!${shaped}`;
      // The very JSON Cedar is given (keys sorted at every level), so equal strings are equal requests to Cedar.
      return Object.keys(shaped).length === 0 ? '' : JSON.stringify(shaped);
    },
    isAuthorized(request: PolicyRequest): PolicyAnswer {
      if (released) throw new PolicyEvaluationError(`policy image ${image.digest} was released`);
      const applies = schema.actions.get(request.action);
      // An action or entity type the schema does not know cannot be permitted by a
      // validated policy: deny without asking Cedar (which would report an error).
      if (!applies || !applies.principalTypes.has(request.principal.type) || !applies.resourceTypes.has(request.resource.type)) {
        return { allowed: false, reasons: [], errors: [`action "${request.action}" does not apply to ${request.principal.type} on ${request.resource.type}`] };
      }
      // The request's context as the action declares it: undeclared attributes left out.
      const context = toCedarContext(contexts.get(request.action) ?? NO_CONTEXT, request.context);
      if (typeof context === 'string') return { allowed: false, reasons: [], errors: [context] };
      const answer = evaluate({
        principal: request.principal,
        action: { type: actionType, id: request.action },
        resource: request.resource,
        context,
        preparsedPolicySetId: preparsedId,
        preparsedSchemaName: preparsedId,
        // Cedar parses the context against the action's declared context (extension and
        // entity values in every form it takes) and refuses what does not fit it: a wrong
        // type, an invalid ip string, a required attribute missing, an id outside an enum.
        validateRequest: true,
        entities: request.entities as EntityJson[],
      });
      if (answer === undefined) throw new PolicyEvaluationError('Cedar failed on this request; the engine was reset');
      if (answer.type === 'failure') {
        const messages = answer.errors.map((e) => describeCedarError(e));
        // Entities that break the schema are the directory's fault, not the request's: no answer.
        if (messages.some((m) => ENTITY_FAILURE.test(m))) throw new PolicyEvaluationError(messages.join('; '));
        // A request Cedar refuses (its context, an enum id…) is a deny, as Cedar gives no allow.
        return { allowed: false, reasons: [], errors: messages.map((m) => `request refused by Cedar: ${m}`) };
      }
      const { decision, diagnostics } = answer.response;
      const errors: string[] = [];
      for (const e of diagnostics.errors) errors.push(`${e.policyId}: ${describeCedarError(e.error)}`);
      return { allowed: decision === 'allow', reasons: diagnostics.reason, errors };
    },
    release(): void {
      if (released) return;
      released = true;
      releasePreparsed(preparsedId);
    },
  });
}
