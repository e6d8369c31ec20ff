import fc from 'fast-check';
import {
  evaluationRequestSchema,
  evaluationsRequestSchema,
  isRequestSchema,
  quickEvaluationRequest,
  quickEvaluationsRequest,
  quickIsRequest,
} from '../../src/decision-protocol';

// The hand checks may only ever agree with zod: whatever they accept, zod accepts and parses
// to the same value. Bodies are generated near the edges of every rule (lengths, patterns,
// reserved words, unknown keys, nulls, wrong types), so both sides of each check are reached.

const DIGEST = `sha256:${'a'.repeat(64)}`;

const text = fc.oneof(
  fc.constantFrom('', 'a', 'user', 'Resource', 'Outpost::Resource', 'in', 'Outpost::is', 'DELETE', 'rbac.DELETE', 'RBAC.x', '9x', '__proto__', 'constructor', 'é'),
  fc.string({ maxLength: 4 }),
  fc.nat({ max: 600 }).map((n) => 'x'.repeat(n)),
);
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<unknown> = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(text, scalar, { maxKeys: 2 }));
/** Mostly `valid`, now and then anything. */
const near = (valid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 30, arbitrary: valid }, { weight: 1, arbitrary: text }, { weight: 1, arbitrary: value });
/** One of `valid` nine times in ten, else one of `invalid`. */
const pick = <T>(valid: readonly T[], invalid: readonly T[]): fc.Arbitrary<T> => fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) });
/** An object with `required` (usually) and some of `optional`, now and then an unknown key or not an object at all. */
function shape(required: Record<string, fc.Arbitrary<unknown>>, optional: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<unknown> {
  const all = { ...required, ...optional };
  const whole = fc.record(all, { requiredKeys: Object.keys(required) });
  const some = fc.record(all, { requiredKeys: [] });
  const extra = fc.tuple(whole, text, value).map(([r, k, v]) => ({ ...(r as object), [k]: v }));
  return fc.oneof({ weight: 40, arbitrary: whole }, { weight: 1, arbitrary: some }, { weight: 1, arbitrary: extra }, { weight: 1, arbitrary: value });
}
const types = pick(['user', 'Resource', 'Outpost::Resource', 'Outpost::Todo', 'T'.repeat(128)], ['in', 'Outpost::is', '9x', 'a::', 'T'.repeat(129), '']);
const ids = fc.oneof({ weight: 9, arbitrary: fc.constantFrom('rick', 'x', '__proto__', 'i'.repeat(128)) }, { weight: 1, arbitrary: fc.nat({ max: 300 }).map((n) => 'i'.repeat(n)) });
const actions = pick(['GET', 'DELETE', 'can_read', 'a-b', 'A'.repeat(64)], ['9x', '', 'A'.repeat(65), 'a.b']);
const flat = fc.oneof({ weight: 9, arbitrary: fc.oneof(fc.constantFrom('rick', '', 's'.repeat(512)), fc.integer(), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true })) }, { weight: 1, arbitrary: fc.constantFrom(null, {}, [], 's'.repeat(513)) });
const propertyKeys = pick(['owner', 'a_1', '_x', 'k'.repeat(64)], ['1a', 'cerbos.roles', 'k'.repeat(65), '__proto__', 'constructor']);
const properties = near(fc.oneof({ weight: 5, arbitrary: fc.dictionary(propertyKeys, flat, { maxKeys: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), flat, { minKeys: 30, maxKeys: 34 }) }));
const subject = shape({ type: near(types), id: near(ids) }, { properties });
const action = shape({ name: near(actions) }, { properties });
const resource = shape({ type: near(types), id: near(ids) }, { properties });
const context = near(fc.dictionary(fc.string({ maxLength: 3 }), value, { maxKeys: 2 }));
const freshness = {
  min_directory_revision: pick([0, 7, 2 ** 53 - 1], [-1, 2 ** 53, 1.5, '3', null]),
  min_policy_digest: pick([DIGEST], [DIGEST.toUpperCase(), 'sha256:', '']),
};
const evaluation = shape({ subject, action, resource }, { context, ...freshness });
const item = shape({}, { subject, action, resource, context });
const evaluations = shape({ subject }, { action, resource, context, evaluations: near(fc.oneof({ weight: 20, arbitrary: fc.array(item, { maxLength: 4 }) }, { weight: 1, arbitrary: fc.array(item, { minLength: 64, maxLength: 65 }) })), ...freshness });
const identityTypes = pick(['SUB', 'JWT', 'NONE', 'IDENTITY_TYPE_SUB', 'IDENTITY_TYPE_NONE', 'IDENTITY_TYPE_JWT'], ['hasOwnProperty', 'sub', '']);
const paths = pick(['rbac.DELETE', 'rbac.a:b', `rbac.${'a'.repeat(64)}`], ['RBAC.x', 'rbac.', 'rbac', `rbac.${'a'.repeat(65)}`]);
const decisions = near(fc.array(pick(['allowed', 'visible', '', 'd'.repeat(64)], ['d'.repeat(65), 1]), { maxLength: 9 }));
const attributes = fc.oneof(fc.dictionary(fc.constantFrom('owner', 'open', 'n'), flat, { maxKeys: 3 }), fc.dictionary(fc.constantFrom(...Array.from({ length: 40 }, (_v, i) => `a${i}`)), fc.integer(), { minKeys: 30, maxKeys: 36 }));
const is = shape(
  {
    identity_context: shape({ type: near(identityTypes) }, { identity: pick(['rick', '', 'j'.repeat(8192)], ['j'.repeat(8193), null]) }),
    policy_context: shape({ path: near(paths), decisions }),
    resource_context: fc.tuple(shape({ type: near(types), id: near(ids) }), attributes).map(([r, a]) => (typeof r === 'object' && r !== null && !Array.isArray(r) ? { ...a, ...r } : r)),
  },
  freshness,
);

/**
 * Checks that every body the quick check accepts, zod accepts, with the same result; and that
 * the bodies reached both answers often (a generator that never hit the fast path would prove nothing).
 */
function agrees<T>(body: fc.Arbitrary<unknown>, quick: (body: unknown) => T | undefined, schema: { safeParse(body: unknown): { success: boolean; data?: unknown } }): void {
  let accepted = 0;
  let declined = 0;
  fc.assert(
    fc.property(body, (generated) => {
      // What the sidecar sees: the body as JSON.parse gives it (plain prototypes, no undefined).
      const b: unknown = JSON.parse(JSON.stringify(generated));
      const fast = quick(b);
      if (fast === undefined) {
        declined += 1;
        return;
      }
      accepted += 1;
      const parsed = schema.safeParse(b);
      expect(parsed.success).toBe(true);
      expect(fast).toStrictEqual(parsed.data);
    }),
    { numRuns: RUNS },
  );
  expect(accepted).toBeGreaterThan(RUNS / 20);
  expect(declined).toBeGreaterThan(RUNS / 20);
}

const RUNS = 3000;

describe('the hand checks of the decision bodies', () => {
  it('accept only what the evaluation schema accepts, parsed the same', () => {
    agrees(evaluation, quickEvaluationRequest, evaluationRequestSchema);
  });

  it('accept only what the evaluations schema accepts, parsed the same', () => {
    agrees(evaluations, quickEvaluationsRequest, evaluationsRequestSchema);
  });

  it('accept only what the is schema accepts, parsed the same', () => {
    agrees(is, quickIsRequest, isRequestSchema);
  });

  it('take the plain bodies themselves (the sidecar skips zod for them)', () => {
    const plain = { subject: { type: 'user', id: 'rick' }, action: { name: 'DELETE' }, resource: { type: 'Resource', id: 'mega-seed' } };
    expect(quickEvaluationRequest(plain)).toStrictEqual(evaluationRequestSchema.parse(plain));
    const withProperties = {
      subject: { type: 'user', id: 'rick', properties: { 'cerbos.roles': ['admin'] } },
      action: { name: 'GET', properties: { method: 'GET' } },
      resource: { type: 'Outpost::Todo', id: '1', properties: { owner: 'rick', open: true, n: 2 } },
      context: { time: 'now' },
      min_directory_revision: 3,
      min_policy_digest: DIGEST,
    };
    expect(quickEvaluationRequest(withProperties)).toStrictEqual(evaluationRequestSchema.parse(withProperties));
    const batch = { subject: plain.subject, evaluations: [{ action: { name: 'GET' }, resource: plain.resource }, {}] };
    expect(quickEvaluationsRequest(batch)).toStrictEqual(evaluationsRequestSchema.parse(batch));
    const isBody = { identity_context: { type: 'SUB', identity: 'rick' }, policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] }, resource_context: { type: 'Resource', id: 'x', owner: 'rick' } };
    expect(quickIsRequest(isBody)).toStrictEqual(isRequestSchema.parse(isBody));
    expect(quickIsRequest(isBody)?.identity_context.type).toBe('IDENTITY_TYPE_SUB');
  });

  it.each([
    ['an unknown key', { subject: { type: 'user', id: 'r', extra: 1 }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x' } }],
    ['a reserved word as a type part', { subject: { type: 'user', id: 'r' }, action: { name: 'GET' }, resource: { type: 'Outpost::in', id: 'x' } }],
    ['an empty id', { subject: { type: 'user', id: '' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x' } }],
    ['a resource id past 128', { subject: { type: 'user', id: 'r' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x'.repeat(129) } }],
    ['an action that is not a Cedar id', { subject: { type: 'user', id: 'r' }, action: { name: '9GET' }, resource: { type: 'Resource', id: 'x' } }],
    ['a nested resource property', { subject: { type: 'user', id: 'r' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x', properties: { a: {} } } }],
    ['a null context', { subject: { type: 'user', id: 'r' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x' }, context: null }],
    ['a revision that is not an integer', { subject: { type: 'user', id: 'r' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'x' }, min_directory_revision: 1.5 }],
  ])('leave %s to zod', (_what, body) => {
    expect(quickEvaluationRequest(body)).toBeUndefined();
  });

  it('leaves a batch with options, or past the item bound, to zod', () => {
    const q = { action: { name: 'GET' }, resource: { type: 'Resource', id: 'x' } };
    expect(quickEvaluationsRequest({ subject: { type: 'user', id: 'r' }, evaluations: [q], options: { evaluations_semantic: 'deny_on_first_deny' } })).toBeUndefined();
    expect(quickEvaluationsRequest({ subject: { type: 'user', id: 'r' }, evaluations: Array.from({ length: 65 }, () => q) })).toBeUndefined();
    expect(quickEvaluationsRequest({ subject: { type: 'user', id: 'r' }, evaluations: Array.from({ length: 64 }, () => q) })?.evaluations).toHaveLength(64);
  });

  it('leaves an is body with an unknown identity type, too many decisions or attributes to zod', () => {
    const base = { identity_context: { type: 'SUB', identity: 'rick' }, policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] }, resource_context: { type: 'Resource', id: 'x' } };
    expect(quickIsRequest({ ...base, identity_context: { type: 'toString' } })).toBeUndefined();
    expect(quickIsRequest({ ...base, policy_context: { path: 'rbac.DELETE', decisions: Array(9).fill('allowed') } })).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 33 }, (_v, i) => [`a${i}`, i]));
    expect(quickIsRequest({ ...base, resource_context: { type: 'Resource', id: 'x', ...many } })).toBeUndefined();
    expect(quickIsRequest({ ...base, resource_context: { type: 'Resource', id: 'x', ...Object.fromEntries(Object.entries(many).slice(1)) } })).toBeDefined();
  });
});
