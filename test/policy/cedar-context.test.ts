import { createPolicyImage, compilePolicyImage } from '../../src/policy';

// A request's context reaches Cedar shaped by the action's declared context: declared
// attributes of the declared type (common types, nested records and sets followed),
// everything else left out; a required attribute missing is a deny, never an error.

const schema = `namespace T {
  entity user;
  entity doc;
  type Claims = { role?: String, level?: Long };
  action read appliesTo { principal: user, resource: doc, context: { subject?: Claims, tags?: Set<String>, mfa?: Bool } };
  action sign appliesTo { principal: user, resource: doc, context: { mfa: Bool } };
  action list appliesTo { principal: user, resource: doc };
}`;
const policies = `
permit (principal, action == T::Action::"read", resource)
when { context has subject && context.subject has role && context.subject.role == "admin" };
permit (principal, action == T::Action::"read", resource)
when { context has subject && context.subject has level && context.subject.level >= 3 };
permit (principal, action == T::Action::"read", resource)
when { context has tags && context.tags.contains("public") && context has mfa && context.mfa };
permit (principal, action == T::Action::"sign", resource) when { context.mfa };
permit (principal, action == T::Action::"list", resource);
`;
const policy = compilePolicyImage(createPolicyImage('ctx', { 'schema.cedarschema': schema, 'p.cedar': policies, 'manifest.json': '{}' }));
afterAll(() => policy.release());

const ask = (action: string, context?: Record<string, unknown>) =>
  policy.isAuthorized({ principal: { type: 'T::user', id: 'u' }, action, resource: { type: 'T::doc', id: 'd' }, ...(context ? { context } : {}), entities: [] });

describe('the Cedar context of a request', () => {
  it('takes declared attributes through a common type, nested records and sets', () => {
    expect(ask('read', { subject: { role: 'admin' } }).allowed).toBe(true);
    expect(ask('read', { subject: { level: 3 } }).allowed).toBe(true);
    expect(ask('read', { tags: ['public'], mfa: true }).allowed).toBe(true);
    expect(ask('read', {}).allowed).toBe(false);
  });

  it('leaves out what the schema does not declare or types otherwise, without an error', () => {
    for (const context of [{ subject: { role: 'admin', extra: 1 }, time: 'now' }, { subject: { role: 7 } }, { subject: { level: 3.5 } }, { tags: ['public', 1], mfa: true }, { subject: 'admin' }]) {
      const answer = ask('read', context);
      expect(answer.errors).toEqual([]);
    }
    expect(ask('read', { subject: { role: 'admin', extra: 1 }, time: 'now' }).allowed).toBe(true);
    expect(ask('read', { subject: { role: 7 } }).allowed).toBe(false);
    expect(ask('read', { tags: ['public', 1], mfa: true }).allowed).toBe(false);
  });

  it('is a deny naming the attribute when a required one is missing or mistyped', () => {
    expect(ask('sign', { mfa: true }).allowed).toBe(true);
    expect(ask('sign')).toEqual({ allowed: false, reasons: [], errors: ['context.mfa is required and missing or not of its declared type'] });
    expect(ask('sign', { mfa: 'yes' }).allowed).toBe(false);
  });

  it('is empty for an action that declares none, whatever the request says', () => {
    expect(ask('list', { anything: { at: 'all' } })).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
  });
});
