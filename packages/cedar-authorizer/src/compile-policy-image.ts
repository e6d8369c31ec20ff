import type { AuthorizationAnswer, EntityJson, SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';
import { describeActionContexts, toCedarContext, type ContextShape } from './cedar-context';
import { CedarEngineError, withCedar, type CedarBindings } from './cedar-engine';
import { checkPolicyText } from './check-policy-text';
import { describeSchema, qualifyType, type PolicySchemaInfo } from './describe-schema';
import { PolicyEvaluationError, PolicyValidationError } from './policy-errors';
import { MANIFEST_FILE, POLICY_EXTENSION, SCHEMA_FILE, type PolicyImage } from './policy-image';
import { acquirePreparsed, releasePreparsed } from './preparsed-registry';
import { policiesReadResource } from './reads-resource';
import { describeCedarError, locateCedarError } from './source-lines';
import type { CompiledPolicy, PolicyAnswer, PolicyRequest } from './compiled-policy';
import { splitPolicyFiles } from './split-policy-files';
import { parseManifest } from './verify-policy-image';

function fail(image: PolicyImage, problems: string[]): never {
  throw new PolicyValidationError(image.name, problems);
}

/** Every file's text within the nesting and operator limits, checked before Cedar sees any. */
function checkTextLimits(image: PolicyImage): void {
  const problems = Object.entries(image.files).flatMap(([file, text]) => {
    if (file === SCHEMA_FILE) return checkPolicyText(file, text, 'schema') ?? [];
    return file.endsWith(POLICY_EXTENSION) ? (checkPolicyText(file, text, 'policy') ?? []) : [];
  });
  if (problems.length > 0) fail(image, problems);
}

/** Runs `step` after the text limits; Cedar failing on the text is a validation problem too. */
function guarded<T>(image: PolicyImage, step: () => T): T {
  checkTextLimits(image);
  try {
    return step();
  } catch (err) {
    if (err instanceof CedarEngineError) fail(image, [err.message]);
    throw err;
  }
}

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

interface CheckedImage {
  readonly schemaText: string;
  /** The schema as Cedar's JSON, type names resolved: what validation and pre-parsing read. */
  readonly schemaJson: SchemaJson<string>;
  readonly description: string;
  readonly schema: PolicySchemaInfo;
  /** Each action's declared context, for shaping a request's context into it. */
  readonly contexts: ReadonlyMap<string, ContextShape>;
  readonly staticPolicies: Record<string, string>;
}

/**
 * Why Cedar refused an image whose schema text it could not use: the schema's own errors,
 * located in its file, when it has any (`checkParseSchema` builds the whole schema, as
 * validation does); otherwise `fallback`. Only called on failure, so a good image pays for
 * one parse of the schema text, not two.
 */
function schemaProblems(schemaText: string, fallback: () => string[]): string[] {
  const parsed = withCedar('schema parse', (cedar) => cedar.checkParseSchema(schemaText));
  return parsed.type === 'failure' ? parsed.errors.map((e) => locateCedarError(e, SCHEMA_FILE, schemaText)) : fallback();
}

function checkImage(image: PolicyImage): CheckedImage {
  const schemaText = image.files[SCHEMA_FILE];
  if (schemaText === undefined) fail(image, [`${SCHEMA_FILE}: missing`]);
  const manifest = parseManifest(image.files[MANIFEST_FILE] ?? '{}');
  // The text is parsed here only: validation and pre-parsing read this JSON form of it
  // (every type name resolved), which Cedar reads in two thirds of the time.
  const schemaJson = withCedar('schema parse', (cedar) => cedar.schemaToJsonWithResolvedTypes(schemaText));
  if (schemaJson.type === 'failure') fail(image, schemaProblems(schemaText, () => schemaJson.errors.map((e) => `${SCHEMA_FILE}: ${describeCedarError(e)}`)));
  const schema = describeSchema(schemaJson.json);
  if (typeof schema === 'string') fail(image, [`${SCHEMA_FILE}: ${schema}`]);

  const { sources, problems } = splitPolicyFiles(image);
  if (problems.length > 0) fail(image, problems);
  const byId = new Map(sources.map((s) => [s.id, s]));
  const staticPolicies = Object.fromEntries(sources.map((s) => [s.id, s.text]));
  const validation = withCedar('validation', (cedar) =>
    cedar.validate({ schema: schemaJson.json, policies: { staticPolicies }, validationSettings: { mode: 'strict' } }),
  );
  // A schema that converts but does not build (a cycle, say) fails here: named in its file.
  if (validation.type === 'failure') fail(image, schemaProblems(schemaText, () => validation.errors.map((e) => describeCedarError(e))));
  if (validation.validationErrors.length > 0) {
    fail(
      image,
      validation.validationErrors.map(({ policyId, error }) => {
        const source = byId.get(policyId);
        return source ? locateCedarError(error, source.file, source.text, source.line) : `${policyId}: ${describeCedarError(error)}`;
      }),
    );
  }

  return { schemaText, schemaJson: schemaJson.json, description: manifest.description ?? '', schema, contexts: describeActionContexts(schemaJson.json), staticPolicies };
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
