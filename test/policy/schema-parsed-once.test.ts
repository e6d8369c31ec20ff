import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { compilePolicyImage, createPolicyImage, readPolicyFolder } from '../../src/policy';
import type { CedarCall } from '../helpers/recording-cedar';

/** Every Cedar call a compile makes, by binding name, with its arguments. */
const mockCalls: CedarCall[] = [];
jest.mock('../../packages/cedar-authorizer/src/cedar-engine', () => jest.requireActual<typeof import('../helpers/recording-cedar')>('../helpers/recording-cedar').recordingCedarEngine(() => mockCalls));

const rbac = readPolicyFolder(join(findProjectRoot(), 'policies', 'rbac'));
const schemaText = rbac.files['schema.cedarschema']!;

describe('compiling an image', () => {
  beforeEach(() => {
    mockCalls.length = 0;
  });

  it('hands Cedar the schema text once; validation and pre-parsing read its JSON form', () => {
    // A digest no test has compiled: the schema and policies are pre-parsed here.
    const image = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// parsed once\n` });
    compilePolicyImage(image).release();
    const names = mockCalls.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['validate', 'preparseSchema', 'preparsePolicySet']));
    const withText = mockCalls.filter((c) => JSON.stringify(c.args).includes(JSON.stringify(schemaText)));
    expect(withText.map((c) => c.name)).toEqual(['schemaToJsonWithResolvedTypes']);
  });

  it('parses the schema text again only to name the line of a schema error', () => {
    const broken = createPolicyImage('rbac', { ...rbac.files, 'schema.cedarschema': 'namespace Outpost {\n  entity User;\n  entity Resource\n}\n' });
    expect(() => compilePolicyImage(broken)).toThrow(/schema\.cedarschema:4: /);
    expect(mockCalls.map((c) => c.name)).toEqual(['schemaToJsonWithResolvedTypes', 'checkParseSchema']);
  });
});
