/**
 * The decision cache keys on the context as Cedar gets it (CompiledPolicy.contextKey): the
 * attributes the action's schema declares, as sent. Attributes nobody declared cannot change
 * an answer, so they must not cost a Cedar call; declared ones must, each answer the one a
 * cache-less authorizer gives.
 */
import { join } from 'node:path';
import { createLocalAuthorizer } from '../../src/decision';
import { compilePolicyImage, createPolicyImage, readPolicyFolder, type CompiledPolicy } from '../../src/policy';
import { citadel, policiesDir, resourceRequest, userIds } from '../authorizer/citadel';

const seed = citadel();
const users = userIds(seed);
const rbacImage = readPolicyFolder(join(policiesDir, 'rbac'));
const schemaText = rbacImage.files['schema.cedarschema'] as string;
const compiled: CompiledPolicy[] = [];
const compile = (files: Record<string, string> = {}) => {
  const policy = compilePolicyImage(createPolicyImage('rbac', { ...rbacImage.files, ...files }));
  compiled.push(policy);
  return policy;
};
afterAll(() => compiled.forEach((p) => p.release()));

// DELETE declares a context: a required reason and an optional urgency, which a forbid reads.
const withContext = () =>
  compile({
    'schema.cedarschema': schemaText.replace(
      '  action GET, PUT, POST, DELETE appliesTo {',
      '  action DELETE appliesTo {\n    principal: User,\n    resource: Resource,\n    context: { reason: String, urgent?: Bool },\n  };\n  action GET, PUT, POST appliesTo {',
    ),
    'urgent.cedar': 'forbid (principal, action == Outpost::Action::"DELETE", resource) when { context has urgent && !context.urgent };\n',
  });

const withRequestContext = (method: string, context: Record<string, unknown> | undefined) => ({
  ...resourceRequest('rbac', users.rick, method, 'r'),
  ...(context === undefined ? {} : { context }),
});

describe('contextKey', () => {
  it('is empty for an action that declares no context, whatever is sent', () => {
    const rbac = compile();
    for (const context of [undefined, {}, { a: 1 }, { nested: { deep: [1, 'two'] } }, 'not even an object']) expect(rbac.contextKey('DELETE', context)).toBe('');
    expect(rbac.contextKey('no-such-action', { a: 1 })).toBe('');
  });

  it('keeps the declared attributes as sent, keys sorted, and leaves the rest out', () => {
    const policy = withContext();
    const key = policy.contextKey('DELETE', { urgent: true, reason: 'cleanup', extra: 'ignored' });
    expect(key).toBe(JSON.stringify({ reason: 'cleanup', urgent: true }));
    expect(policy.contextKey('DELETE', { reason: 'cleanup', urgent: true })).toBe(key);
    // A declared attribute of the wrong type is kept: Cedar is given it, and refuses the request.
    expect(policy.contextKey('DELETE', { reason: 'cleanup', urgent: 'yes' })).toBe(JSON.stringify({ reason: 'cleanup', urgent: 'yes' }));
    // Without the required reason: what is there, as Cedar is given it (and refuses).
    expect(policy.contextKey('DELETE', { urgent: true, extra: 1 })).toBe(JSON.stringify({ urgent: true }));
    expect(policy.contextKey('DELETE', undefined)).toBe('');
    expect(policy.contextKey('DELETE', { extra: 1 })).toBe('');
    expect(policy.contextKey('GET', { reason: 'cleanup' })).toBe('');
  });
});

describe('the decision cache and the context', () => {
  it('answers contexts that differ only in undeclared attributes from one Cedar call, each as Cedar does without a cache', () => {
    const rbac = compile();
    const cached = createLocalAuthorizer({ policy: () => rbac, directory: () => seed });
    const uncached = createLocalAuthorizer({ policy: () => rbac, directory: () => seed, cacheSize: 0 });
    const contexts = [undefined, {}, { nonce: 1 }, { nonce: 2 }, { subject: { roles: ['admin'] }, question: 'q-7' }];
    for (const [i, context] of contexts.entries()) {
      const answer = cached.decideNow(withRequestContext('DELETE', context));
      expect(answer.cached).toBe(i > 0);
      const { cached: _, ...fresh } = uncached.decideNow(withRequestContext('DELETE', context));
      expect(answer).toMatchObject(fresh);
    }
    expect(cached.stats()).toMatchObject({ misses: 1, hits: contexts.length - 1 });
  });

  it('asks Cedar again when a declared attribute differs, and answers each context as Cedar does without a cache', () => {
    const policy = withContext();
    const cached = createLocalAuthorizer({ policy: () => policy, directory: () => seed });
    const uncached = createLocalAuthorizer({ policy: () => policy, directory: () => seed, cacheSize: 0 });
    const contexts = [
      { reason: 'cleanup' },
      { reason: 'cleanup', urgent: true },
      { reason: 'cleanup', urgent: false },
      { reason: 'cleanup', urgent: false, extra: 1 },
      { reason: 'audit', urgent: false },
      { reason: 'cleanup', urgent: 'no' },
      { urgent: true },
      {},
      undefined,
    ];
    const answers = contexts.map((context) => {
      const answer = cached.decideNow(withRequestContext('DELETE', context));
      const { cached: _, ...fresh } = uncached.decideNow(withRequestContext('DELETE', context));
      expect(answer).toMatchObject(fresh);
      return answer;
    });
    // The mistyped urgency is refused by Cedar, as is a context without the required reason.
    expect(answers.map((a) => a.allowed)).toEqual([true, true, false, false, false, false, false, false, false]);
    // Repeats of a question already asked: the extra attribute, and the two ways of sending nothing.
    expect(answers.map((a) => a.cached)).toEqual([false, false, false, true, false, false, false, false, true]);
  });

  it('hands each decision on with the context as it was sent', () => {
    const rbac = compile();
    const keys: string[] = [];
    const authorizer = createLocalAuthorizer({ policy: () => rbac, directory: () => seed, onDecision: (_r, key) => keys.push(key) });
    authorizer.decideNow(withRequestContext('GET', { nonce: 1 }));
    authorizer.decideNow(withRequestContext('GET', { nonce: 2 }));
    authorizer.decideNow(withRequestContext('GET', undefined));
    expect(authorizer.stats()).toMatchObject({ hits: 2, misses: 1 });
    expect(keys[0]).toContain('{"nonce":1}');
    expect(keys[1]).toContain('{"nonce":2}');
    expect(keys[2]).not.toContain('#');
  });
});
