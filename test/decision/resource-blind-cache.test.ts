import { createLocalAuthorizer, InvalidPropertyError } from '../../src/decision';
import { compilePolicyImage, createPolicyImage, readPolicyFolder, type CompiledPolicy } from '../../src/policy';
import { join } from 'node:path';
import { citadel, policiesDir, resourceRequest, userIds } from '../authorizer/citadel';

// A policy set that reads the resource only by its type gets one answer per resource type:
// the cache then serves every resource id from one Cedar call (docs/architecture.md).
const seed = citadel();
const users = userIds(seed);
const rbacImage = readPolicyFolder(join(policiesDir, 'rbac'));
const rbacText = rbacImage.files['rbac.cedar'] as string;
const compiled: CompiledPolicy[] = [];
const compile = (files: Record<string, string>) => {
  const policy = compilePolicyImage(createPolicyImage('rbac', { ...rbacImage.files, ...files }));
  compiled.push(policy);
  return policy;
};
afterAll(() => compiled.forEach((p) => p.release()));

describe('decisions of a policy that never reads the resource', () => {
  it('answers every resource id from one Cedar call, each answer what Cedar gives without a cache', () => {
    const rbac = compile({});
    expect(rbac.readsResource).toBe(false);
    const cached = createLocalAuthorizer({ policy: () => rbac, directory: () => seed });
    const uncached = createLocalAuthorizer({ policy: () => rbac, directory: () => seed, cacheSize: 0 });
    for (const user of Object.values(users)) {
      for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
        for (const [i, name] of ['a', 'b', 'another resource'].entries()) {
          const request = resourceRequest('rbac', user, method, name);
          const answer = cached.decideNow(request);
          expect(answer.cached).toBe(i > 0);
          const { cached: _, ...fresh } = uncached.decideNow(request);
          expect({ ...answer, reasons: [...answer.reasons].sort() }).toMatchObject({ ...fresh, reasons: [...fresh.reasons].sort() });
        }
      }
    }
    expect(cached.stats()).toMatchObject({ misses: 5 * 4, hits: 5 * 4 * 2 });
  });

  it('still hands each decision on with its exact key, the resource id in it', () => {
    const rbac = compile({});
    const keys: string[] = [];
    const authorizer = createLocalAuthorizer({ policy: () => rbac, directory: () => seed, onDecision: (_r, key) => keys.push(key) });
    authorizer.decideNow(resourceRequest('rbac', users.rick, 'GET', 'a'));
    authorizer.decideNow(resourceRequest('rbac', users.rick, 'GET', 'b'));
    expect(authorizer.stats()).toMatchObject({ hits: 1, misses: 1 });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toContain('1:a');
    expect(keys[1]).toContain('1:b');
  });

  it('asks Cedar for each id again once a policy reads the resource', () => {
    const onlyX = compile({ 'rbac.cedar': rbacText.replace(/action,\n  resource is Outpost::Resource\n\);\s*$/, 'action,\n  resource == Outpost::Resource::"x"\n);\n') });
    expect(onlyX.readsResource).toBe(true);
    const authorizer = createLocalAuthorizer({ policy: () => onlyX, directory: () => seed });
    expect(authorizer.decideNow(resourceRequest('rbac', users.rick, 'DELETE', 'x'))).toMatchObject({ allowed: true, cached: false });
    expect(authorizer.decideNow(resourceRequest('rbac', users.rick, 'DELETE', 'y'))).toMatchObject({ allowed: false, cached: false });
  });

  it('keeps refusing a property of the wrong type after the same question was answered for another id', () => {
    const withOwner = compile({ 'schema.cedarschema': (rbacImage.files['schema.cedarschema'] as string).replace('entity Resource;', 'entity Resource { owner?: String };') });
    expect(withOwner.readsResource).toBe(false);
    const authorizer = createLocalAuthorizer({ policy: () => withOwner, directory: () => seed });
    const request = (id: string, owner: unknown) => ({ ...resourceRequest('rbac', users.rick, 'GET', id), resource: { type: 'Resource', id, attributes: { owner } as Record<string, string | number> } });
    expect(authorizer.decideNow(request('a', 'rick')).allowed).toBe(true);
    expect(authorizer.decideNow(request('b', 'rick')).cached).toBe(true);
    expect(() => authorizer.decideNow(request('c', 5))).toThrow(InvalidPropertyError);
  });
});
