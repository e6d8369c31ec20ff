import { createPolicyImage, compilePolicyImage } from '../../src/policy';

// A request's context reaches Cedar as Cedar parses a request against the schema: the
// attributes the action declares (in nested records too), of every type a schema allows —
// extension values and entity references in each JSON form Cedar takes — and undeclared
// ones left out (AuthZEN). What Cedar refuses (a wrong type, a bad ip string, a required
// attribute missing) is a deny with Cedar's error, never an allow.

const schema = `namespace T {
  entity user;
  entity doc;
  type Claims = { role?: String, level?: Long };
  action read appliesTo { principal: user, resource: doc, context: { subject?: Claims, tags?: Set<String>, mfa?: Bool } };
  action sign appliesTo { principal: user, resource: doc, context: { mfa: Bool } };
  action list appliesTo { principal: user, resource: doc };
  action view appliesTo { principal: user, resource: doc, context: { source_ip?: ipaddr, score?: decimal, at?: datetime, ttl?: duration, by?: user, team?: Set<user>, hops?: Set<{ ip: ipaddr }> } };
  action login appliesTo { principal: user, resource: doc, context: { source_ip: ipaddr } };
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
permit (principal, action == T::Action::"view", resource);
forbid (principal, action == T::Action::"view", resource)
when { context has source_ip && context.source_ip.isInRange(ip("10.0.0.0/8")) };
forbid (principal, action == T::Action::"view", resource)
when { context has score && context.score.greaterThan(decimal("0.5")) };
forbid (principal, action == T::Action::"view", resource)
when { context has at && context has ttl && context.at.offset(context.ttl) > datetime("2030-01-01") };
forbid (principal, action == T::Action::"view", resource) when { context has by && context.by == principal };
forbid (principal, action == T::Action::"view", resource) when { context has team && context.team.contains(principal) };
forbid (principal, action == T::Action::"view", resource)
when { context has hops && context.hops.contains({ ip: ip("192.168.0.1") }) };
permit (principal, action == T::Action::"login", resource) when { context.source_ip.isLoopback() };
`;
const policy = compilePolicyImage(createPolicyImage('ctx', { 'schema.cedarschema': schema, 'p.cedar': policies, 'manifest.json': '{}' }));
afterAll(() => policy.release());

const ask = (action: string, context?: Record<string, unknown>) =>
  policy.isAuthorized({ principal: { type: 'T::user', id: 'u' }, action, resource: { type: 'T::doc', id: 'd' }, ...(context ? { context } : {}), entities: [] });
const refused = expect.objectContaining({ allowed: false, reasons: [], errors: [expect.stringMatching(/^request refused by Cedar: /)] });

describe('the Cedar context of a request', () => {
  it('takes declared attributes through a common type, nested records and sets', () => {
    expect(ask('read', { subject: { role: 'admin' } }).allowed).toBe(true);
    expect(ask('read', { subject: { level: 3 } }).allowed).toBe(true);
    expect(ask('read', { tags: ['public'], mfa: true }).allowed).toBe(true);
    expect(ask('read', {}).allowed).toBe(false);
  });

  it('leaves out what the schema does not declare, at any depth, without an error', () => {
    expect(ask('read', { subject: { role: 'admin', extra: 1 }, time: 'now' })).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
    expect(ask('view', { hops: [{ ip: '192.168.0.1', port: 80 }], note: { any: 'thing' } })).toEqual(expect.objectContaining({ allowed: false, errors: [] }));
  });

  it('is a deny with Cedar\'s error for a declared attribute Cedar refuses, never the attribute left out', () => {
    for (const context of [{ subject: { role: 7 } }, { subject: { level: 3.5 } }, { tags: ['public', 1], mfa: true }, { subject: 'admin' }, { mfa: 'yes' }]) {
      expect(ask('read', context)).toEqual(refused);
    }
    // Each of these, left out, would let the permit through: the forbid it feeds must not be skipped.
    for (const context of [{ source_ip: 'not an ip' }, { source_ip: 10 }, { score: '0.5.1' }, { by: 'u' }, { team: { type: 'T::user', id: 'u' } }, { at: '2031-13-01' }, { source_ip: null }]) {
      expect(ask('view', context)).toEqual(refused);
    }
  });

  it('is a deny naming the attribute when a required one is missing or mistyped', () => {
    expect(ask('sign', { mfa: true }).allowed).toBe(true);
    expect(ask('sign')).toEqual({ allowed: false, reasons: [], errors: [expect.stringMatching(/attribute `mfa`/)] });
    expect(ask('sign', { mfa: 'yes' })).toEqual(refused);
  });

  it('is empty for an action that declares none, whatever the request says', () => {
    expect(ask('list', { anything: { at: 'all' } })).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
  });

  it('takes an extension value in each form Cedar takes: __extn, {fn, arg} and the plain string', () => {
    const forbidden = expect.objectContaining({ allowed: false, errors: [], reasons: ['p.cedar:11'] });
    for (const source_ip of ['10.1.2.3', { fn: 'ip', arg: '10.1.2.3' }, { __extn: { fn: 'ip', arg: '10.1.2.3' } }]) {
      expect(ask('view', { source_ip })).toEqual(forbidden);
    }
    expect(ask('view', { source_ip: '192.168.1.1' })).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
    expect(ask('view', { score: '0.75' }).allowed).toBe(false);
    expect(ask('view', { score: { __extn: { fn: 'decimal', arg: '0.25' } } }).allowed).toBe(true);
    expect(ask('view', { at: '2029-12-31', ttl: '2d' }).allowed).toBe(false);
    expect(ask('view', { at: '2029-12-31', ttl: '1h' }).allowed).toBe(true);
    expect(ask('view', { hops: [{ ip: '192.168.0.1' }] }).allowed).toBe(false);
  });

  it('takes an entity reference as {type, id} or __entity, alone or in a set', () => {
    for (const by of [{ type: 'T::user', id: 'u' }, { __entity: { type: 'T::user', id: 'u' } }]) {
      expect(ask('view', { by }).allowed).toBe(false);
      expect(ask('view', { team: [by] }).allowed).toBe(false);
    }
    expect(ask('view', { by: { type: 'T::user', id: 'v' }, team: [{ type: 'T::user', id: 'v' }] }).allowed).toBe(true);
  });

  it('denies every request for a required extension attribute Cedar cannot parse, and allows only the right one', () => {
    expect(ask('login', { source_ip: '127.0.0.1' })).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
    expect(ask('login', { source_ip: '10.0.0.1' })).toEqual(expect.objectContaining({ allowed: false, errors: [] }));
    expect(ask('login', {})).toEqual(refused);
    expect(ask('login', { source_ip: '127.0.0.1/33' })).toEqual(refused);
  });

  it('refuses what JSON cannot carry without asking Cedar', () => {
    expect(ask('view', { score: Number.NaN })).toEqual({ allowed: false, reasons: [], errors: ['context.score is not a JSON number'] });
    expect(ask('view', { team: [undefined] })).toEqual({ allowed: false, reasons: [], errors: ['context.team[0] is not a JSON value'] });
    expect(ask('view', { by: new Date(0) })).toEqual({ allowed: false, reasons: [], errors: ['context.by is not a JSON value'] });
    // Undeclared attributes are left out before they are looked at.
    expect(ask('view', { other: Number.NaN }).allowed).toBe(true);
  });

  it('refuses a value nested deeper than 64 levels without walking it, and hands a shallower one to Cedar', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 'x' : [nest(depth - 1)]);
    expect(ask('view', { team: nest(65) })).toEqual({ allowed: false, reasons: [], errors: [expect.stringMatching(/^context\.team.* is nested more than 64 levels deep$/)] });
    expect(ask('view', { team: nest(63) })).toEqual(refused);
  });

  it('keeps an attribute named __proto__ as data, never as the prototype', () => {
    expect(ask('sign', JSON.parse('{"__proto__": {"mfa": true}}') as Record<string, unknown>)).toEqual(expect.objectContaining({ allowed: false }));
    expect(ask('sign', JSON.parse('{"__proto__": {"x": 1}, "mfa": true}') as Record<string, unknown>)).toEqual(expect.objectContaining({ allowed: true, errors: [] }));
  });

  it('keys a decision cache on the very context Cedar is given', () => {
    expect(policy.contextKey('view', { source_ip: '10.1.2.3', zzz: 1 })).toBe('{"source_ip":"10.1.2.3"}');
    expect(policy.contextKey('view', { by: { id: 'u', type: 'T::user' } })).toBe(policy.contextKey('view', { by: { type: 'T::user', id: 'u' } }));
    expect(policy.contextKey('view', { source_ip: { __extn: { fn: 'ip', arg: '10.1.2.3' } } })).not.toBe(policy.contextKey('view', { source_ip: '10.1.2.4' }));
    expect(policy.contextKey('view', { score: Number.NaN })).toBe('!context.score is not a JSON number');
  });
});
