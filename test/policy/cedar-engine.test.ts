import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { CedarEngineError, engineGeneration, isEngineHealthy, markEngineUnhealthy, resetEngine, withCedar } from '../../packages/cedar-authorizer/src/cedar-engine';
import {
  compilePolicyImage,
  createPolicyImage,
  PolicyValidationError,
  preparsedCount,
  readPolicyFolder,
  type PolicyImage,
  type PolicyRequest,
} from '../../src/policy';

const rbac = readPolicyFolder(join(findProjectRoot(), 'policies', 'rbac'));
const when = (body: string): string => `permit(principal, action, resource) when { ${body} };\n`;
const nestedIf = (depth: number): string => {
  let body = 'true';
  for (let i = 0; i < depth; i += 1) body = `if true then ${body} else false`;
  return body;
};
/** Texts that trap or overflow Cedar's wasm instance when they reach it (issue 7, item 1). */
const poisons: Record<string, [string, RegExp]> = {
  '150 nested parentheses': [when(`${'('.repeat(150)}true${')'.repeat(150)}`), /poison\.cedar:1: nesting deeper than 32/],
  '600 nested set literals': [when(`${'['.repeat(600)}${']'.repeat(600)} == []`), /poison\.cedar:1: nesting deeper than 32/],
  'a 5,000-term sum': [when(`${Array(5000).fill('1').join(' + ')} == 1`), /poison\.cedar:1: more than 128 operators in one policy/],
  '550 nested if': [when(nestedIf(550)), /poison\.cedar:1: nesting deeper than 32/],
};
const request: PolicyRequest = {
  principal: { type: 'Outpost::User', id: 'u1' },
  action: 'GET',
  resource: { type: 'Outpost::Resource', id: 'r' },
  entities: [
    { uid: { type: 'Outpost::User', id: 'u1' }, attrs: { email: 'u@x', name: 'U' }, parents: [{ type: 'Outpost::Role', id: 'viewer' }] },
    { uid: { type: 'Outpost::Role', id: 'viewer' }, attrs: {}, parents: [] },
  ],
};

function withFile(image: PolicyImage, file: string, text: string): PolicyImage {
  return createPolicyImage(image.name, { ...image.files, [file]: text });
}

function problemsOf(image: PolicyImage): readonly string[] {
  try {
    compilePolicyImage(image).release();
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyValidationError);
    return (err as PolicyValidationError).problems;
  }
  throw new Error('expected a PolicyValidationError');
}

describe('the Cedar engine', () => {
  afterEach(() => resetEngine());

  it.each(Object.entries(poisons))('refuses %s before it reaches Cedar, naming file and line', (_name, [text, reason]) => {
    const generation = engineGeneration();
    expect(problemsOf(withFile(rbac, 'poison.cedar', text))).toEqual([expect.stringMatching(reason)]);
    expect(engineGeneration()).toBe(generation);
    const good = compilePolicyImage(rbac);
    expect(good.isAuthorized(request).allowed).toBe(true);
    good.release();
  });

  it('refuses a schema nested deeper than the limit', () => {
    const deep = `${'Set<'.repeat(200)}Long${'>'.repeat(200)}`;
    const schema = `${rbac.files['schema.cedarschema']}\nnamespace Deep { entity Thing = { x: ${deep} }; }\n`;
    expect(problemsOf(withFile(rbac, 'schema.cedarschema', schema))).toEqual([expect.stringMatching(/^schema\.cedarschema:\d+: nesting deeper than 32$/)]);
  });

  it('accepts real policies up to the limits', () => {
    const edge = when(`${'('.repeat(31)}${Array(120).fill('1').join(' + ')} == 1${')'.repeat(31)} && ${nestedIf(0)}`);
    expect(() => compilePolicyImage(withFile(rbac, 'limits.cedar', edge)).release()).not.toThrow();
  });

  it('replaces a trapped instance, re-parses the images still held, and reports the failed call', () => {
    const held = compilePolicyImage(rbac);
    const generation = engineGeneration();
    const poison = poisons['150 nested parentheses']![0];
    // Straight to Cedar, past the text check: the instance traps.
    expect(() => withCedar('parse', (cedar) => cedar.checkParsePolicySet({ staticPolicies: poison }))).toThrow(CedarEngineError);
    expect(engineGeneration()).toBe(generation + 1);
    expect(isEngineHealthy()).toBe(true);
    // The old instance would now answer every call with "memory access out of bounds".
    expect(withCedar('parse', (cedar) => cedar.checkParsePolicySet({ staticPolicies: rbac.files['rbac.cedar']! })).type).toBe('success');
    expect(held.isAuthorized(request)).toEqual({ allowed: true, reasons: ['rbac.cedar:5'], errors: [] });
    held.release();
  });

  it('five compile-and-release rounds leave nothing held', () => {
    const before = preparsedCount();
    for (let i = 0; i < 5; i += 1) compilePolicyImage(withFile(rbac, 'extra.cedar', `// ${i}\n${when('true')}`)).release();
    expect(preparsedCount()).toBe(before);
  });

  it('a fresh instance marks itself healthy again; marking unhealthy is visible', () => {
    markEngineUnhealthy();
    expect(isEngineHealthy()).toBe(false);
    resetEngine();
    expect(isEngineHealthy()).toBe(true);
  });
});
