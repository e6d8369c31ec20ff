import type { SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';
import { describeActionContexts, type ContextShape } from './cedar-context';
import { CedarEngineError, withCedar } from './cedar-engine';
import { checkPolicyText } from './check-policy-text';
import { describeSchema, type PolicySchemaInfo } from './describe-schema';
import { PolicyValidationError } from './policy-errors';
import { MANIFEST_FILE, POLICY_EXTENSION, SCHEMA_FILE, type PolicyImage } from './policy-image';
import { describeCedarError, locateCedarError } from './source-lines';
import { splitPolicyFiles } from './split-policy-files';
import { parseManifest } from './verify-policy-image';

// What an image must pass before it compiles (compile-policy-image.ts): the text limits, a
// schema Cedar builds, and strict validation of every policy against it.

export function fail(image: PolicyImage, problems: string[]): never {
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
export function guarded<T>(image: PolicyImage, step: () => T): T {
  checkTextLimits(image);
  try {
    return step();
  } catch (err) {
    if (err instanceof CedarEngineError) fail(image, [err.message]);
    throw err;
  }
}

export interface CheckedImage {
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
export function schemaProblems(schemaText: string, fallback: () => string[]): string[] {
  const parsed = withCedar('schema parse', (cedar) => cedar.checkParseSchema(schemaText));
  return parsed.type === 'failure' ? parsed.errors.map((e) => locateCedarError(e, SCHEMA_FILE, schemaText)) : fallback();
}

export function checkImage(image: PolicyImage): CheckedImage {
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
