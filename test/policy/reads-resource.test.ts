import { join } from 'node:path';
import { compilePolicyImage, readPolicyFolder } from '../../src/policy';
import { policiesReadResource } from '../../packages/cedar-authorizer/src/reads-resource';
import { policiesDir } from '../authorizer/citadel';

const head = 'permit (principal, action, ';

describe('policiesReadResource', () => {
  it.each([
    ['an unconstrained resource', `${head}resource);`],
    ['a type test', `${head}resource is Outpost::Resource);`],
    ['a condition on the principal and the context only', `${head}resource is R) when { principal.name == "x" && context.flag };`],
    ['the word "resource" in a string or an attribute name', `${head}resource) when { principal.resource == "resource" };`],
  ])('is false for %s', (_name, text) => {
    expect(policiesReadResource([text])).toBe(false);
  });

  it.each([
    ['an equality in the scope', `${head}resource == R::"a");`],
    ['a hierarchy in the scope', `${head}resource in G::"g");`],
    ['a type test with a hierarchy', `${head}resource is R in G::"g");`],
    ['an attribute in a condition', `${head}resource) when { resource.owner == principal };`],
    ['resource anywhere deep in a condition', `${head}resource) unless { [1, 2].contains(if context.a then 1 else [resource].size()) };`],
    ['a comparison with the principal', `${head}resource) when { principal == resource };`],
    ['a template slot', `${head}resource in ?resource);`],
    ['text Cedar cannot parse', 'permit (principal, action, resource'],
  ])('is true for %s', (_name, text) => {
    expect(policiesReadResource([text])).toBe(true);
  });

  it('is true when any one policy of a set reads the resource', () => {
    expect(policiesReadResource([`${head}resource);`, `${head}resource == R::"a");`])).toBe(true);
    expect(policiesReadResource([`${head}resource);`, `${head}resource is R);`])).toBe(false);
  });

  it('is true for a text holding more than one policy (it takes them one by one)', () => {
    expect(policiesReadResource([`${head}resource);\n${head}resource is R);`])).toBe(true);
  });

  it('reads the shipped policies as expected: rbac decides by type, rebac and todo read the resource', () => {
    const readsResource = (name: string) => {
      const policy = compilePolicyImage(readPolicyFolder(join(policiesDir, name)));
      try {
        return policy.readsResource;
      } finally {
        policy.release();
      }
    };
    expect(readsResource('rbac')).toBe(false);
    expect(readsResource('rebac')).toBe(true);
    expect(readsResource('todo')).toBe(true);
  });
});
