/**
 * Outpost's policy path decides every context as Cedar does: random schemas whose actions
 * declare contexts of every type a Cedar schema allows (String, Long, Bool, ipaddr, decimal,
 * datetime, duration, entities, sets, nested records, optional attributes, common types), random
 * contexts in every JSON form Cedar takes (`__extn`, `{fn, arg}`, the plain string, `__entity`,
 * `{type, id}`), some of them wrong (another type, an invalid ip or date, an entity of another
 * type, null, a required attribute missing), and policies that read them. Each answer of
 * compilePolicyImage → isAuthorized is compared with cedar-wasm's own isAuthorized given the
 * same schema text, policies and context — less the attributes no record declares, which
 * Outpost ignores (AuthZEN) and Cedar would refuse.
 */
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import fc from 'fast-check';
import { compilePolicyImage, createPolicyImage, type CompiledPolicy } from '../../src/policy';

type Ext = 'ipaddr' | 'decimal' | 'datetime' | 'duration';
type T =
  | { readonly k: 'String' | 'Long' | 'Bool' }
  | { readonly k: 'ext'; readonly name: Ext }
  | { readonly k: 'entity'; readonly name: 'E' | 'F' }
  | { readonly k: 'set'; readonly el: T }
  | { readonly k: 'record'; readonly attrs: readonly Attr[]; readonly common?: string };
interface Attr {
  readonly name: string;
  readonly t: T;
  readonly required: boolean;
}

const NS = 'T';
const EXT_VALUES: Record<Ext, readonly string[]> = {
  ipaddr: ['10.0.0.1', '192.168.0.0/24', '::1'],
  decimal: ['1.5', '-0.25', '3.0'],
  datetime: ['2024-01-01', '2024-01-01T00:00:00Z', '2024-06-30T12:30:00.500+0100'],
  duration: ['1h', '2d', '-3m30s'],
};
const EXT_BAD: Record<Ext, readonly string[]> = {
  ipaddr: ['999.1.1.1', '10.0.0.1/33', 'localhost'],
  decimal: ['1.23456', 'x', '1'],
  datetime: ['2024-13-01', 'yesterday', '2024-01-01T25:00:00Z'],
  duration: ['1q', '', 'h1'],
};
const EXT_FN: Record<Ext, string> = { ipaddr: 'ip', decimal: 'decimal', datetime: 'datetime', duration: 'duration' };
const NAMES = ['a', 'b', 'c', 'd'];

// ---- schemas -------------------------------------------------------------------------

function typeArb(depth: number): fc.Arbitrary<T> {
  const leaves: fc.Arbitrary<T>[] = [
    fc.constantFrom<T>({ k: 'String' }, { k: 'Long' }, { k: 'Bool' }),
    fc.constantFrom<Ext>('ipaddr', 'decimal', 'datetime', 'duration').map((name): T => ({ k: 'ext', name })),
    fc.constantFrom<'E' | 'F'>('E', 'F').map((name): T => ({ k: 'entity', name })),
  ];
  if (depth <= 0) return fc.oneof(...leaves);
  return fc.oneof(
    { arbitrary: fc.oneof(...leaves), weight: 4 },
    { arbitrary: typeArb(depth - 1).map((el): T => ({ k: 'set', el })), weight: 1 },
    { arbitrary: recordArb(depth - 1), weight: 1 },
  );
}

function recordArb(depth: number): fc.Arbitrary<T> {
  return fc
    .tuple(fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }), fc.boolean())
    .chain(([names, common]) =>
      fc.tuple(...names.map((name) => fc.record({ name: fc.constant(name), t: typeArb(depth), required: fc.boolean() }))).map(
        (attrs): T => ({ k: 'record', attrs, ...(common ? { common: 'pending' } : {}) }),
      ),
    );
}

/** The schema text of a type; records marked common are declared as `type C<n>` and named. */
function typeText(t: T, commons: string[], qualify: boolean): string {
  switch (t.k) {
    case 'String':
    case 'Long':
    case 'Bool':
      return t.k;
    case 'ext':
      return qualify ? `__cedar::${t.name}` : t.name;
    case 'entity':
      return qualify ? `${NS}::${t.name}` : t.name;
    case 'set':
      return `Set<${typeText(t.el, commons, qualify)}>`;
    case 'record': {
      const body = `{ ${t.attrs.map((a) => `"${a.name}"${a.required ? '' : '?'}: ${typeText(a.t, commons, qualify)}`).join(', ')} }`;
      if (!t.common) return body;
      commons.push(body);
      const name = `C${commons.length - 1}`;
      return qualify ? `${NS}::${name}` : name;
    }
  }
}

// ---- values --------------------------------------------------------------------------

/** A context value as sent, and as Cedar is given it directly (no undeclared attributes). */
interface Sent {
  readonly sent: unknown;
  readonly reference: unknown;
}
const same = (v: unknown): Sent => ({ sent: v, reference: v });

function extForm(name: Ext, arg: string): fc.Arbitrary<unknown> {
  return fc.constantFrom<unknown>(arg, { fn: EXT_FN[name], arg }, { __extn: { fn: EXT_FN[name], arg } });
}

/** Something of another type than `t`, or an invalid value of it, that Cedar refuses. */
function wrongArb(t: T): fc.Arbitrary<unknown> {
  const common = fc.constantFrom<unknown>(null, 'zz', 7, true, [], {});
  switch (t.k) {
    case 'ext':
      return fc.oneof(common, fc.constantFrom(...EXT_BAD[t.name]).chain((arg) => extForm(t.name, arg)), extForm(t.name === 'ipaddr' ? 'decimal' : 'ipaddr', '1.5'));
    case 'entity':
      return fc.oneof(common, fc.constant({ type: `${NS}::${t.name === 'E' ? 'F' : 'E'}`, id: 'a' }), fc.constant({ type: `${NS}::${t.name}` }));
    default:
      return common;
  }
}

function valueArb(t: T): fc.Arbitrary<Sent> {
  return fc.oneof({ arbitrary: validArb(t), weight: 9 }, { arbitrary: wrongArb(t).map(same), weight: 1 });
}

function validArb(t: T): fc.Arbitrary<Sent> {
  switch (t.k) {
    case 'String':
      return fc.constantFrom('a', 'b', '').map(same);
    case 'Long':
      return fc.integer({ min: -2, max: 2 }).map(same);
    case 'Bool':
      return fc.boolean().map(same);
    case 'ext':
      return fc.constantFrom(...EXT_VALUES[t.name]).chain((arg) => extForm(t.name, arg)).map(same);
    case 'entity':
      return fc
        .tuple(fc.constantFrom('a', 'b'), fc.boolean())
        .map(([id, escaped]) => same(escaped ? { __entity: { type: `${NS}::${t.name}`, id } } : { type: `${NS}::${t.name}`, id }));
    case 'set':
      return fc.array(valueArb(t.el), { maxLength: 3 }).map((items) => ({ sent: items.map((i) => i.sent), reference: items.map((i) => i.reference) }));
    case 'record':
      return recordValueArb(t.attrs);
  }
}

/** A record: each required attribute (rarely left out), each optional one or not, and extras. */
function recordValueArb(attrs: readonly Attr[]): fc.Arbitrary<Sent> {
  const parts = attrs.map((a) =>
    fc.oneof({ arbitrary: valueArb(a.t).map((v) => [a.name, v] as const), weight: a.required ? 12 : 2 }, { arbitrary: fc.constant(undefined), weight: 1 }),
  );
  const extras = fc.dictionary(fc.constantFrom('x', 'y', 'other', '__entity', '__extn'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
  return fc.tuple(fc.tuple(...parts), extras).map(([given, extra]) => {
    const sent: Record<string, unknown> = { ...extra };
    const reference: Record<string, unknown> = {};
    for (const part of given) {
      if (!part) continue;
      sent[part[0]] = part[1].sent;
      reference[part[0]] = part[1].reference;
    }
    return { sent, reference };
  });
}

// ---- policies ------------------------------------------------------------------------

/** A Cedar literal of a leaf type, for `==` and `contains`. */
function literalArb(t: T): fc.Arbitrary<string> | undefined {
  switch (t.k) {
    case 'String':
      return fc.constantFrom('"a"', '"b"');
    case 'Long':
      return fc.constantFrom('0', '1', '-1');
    case 'Bool':
      return fc.constantFrom('true', 'false');
    case 'ext':
      return fc.constantFrom(...EXT_VALUES[t.name]).map((v) => `${EXT_FN[t.name]}("${v}")`);
    case 'entity':
      return fc.constantFrom('a', 'b').map((id) => `${NS}::${t.name}::"${id}"`);
    default:
      return undefined;
  }
}

/** Conditions over the attributes of a record at `path`, each guarded by `has`. */
function conditionArbs(attrs: readonly Attr[], path: string, guard: string, depth: number): fc.Arbitrary<string>[] {
  const out: fc.Arbitrary<string>[] = [];
  for (const a of attrs) {
    const has = `${guard}${path} has "${a.name}"`;
    const expr = `${path}["${a.name}"]`;
    out.push(fc.constant(has));
    const literal = literalArb(a.t);
    if (literal) out.push(literal.map((l) => `${has} && ${expr} == ${l}`));
    if (a.t.k === 'set') {
      const element = literalArb(a.t.el);
      if (element) out.push(element.map((l) => `${has} && ${expr}.contains(${l})`));
      out.push(fc.constant(`${has} && ${expr}.isEmpty()`));
    }
    if (a.t.k === 'ext' && a.t.name === 'ipaddr') out.push(fc.constant(`${has} && ${expr}.isInRange(ip("10.0.0.0/8"))`));
    if (a.t.k === 'ext' && a.t.name === 'decimal') out.push(fc.constant(`${has} && ${expr}.greaterThan(decimal("1.0"))`));
    if (a.t.k === 'record' && depth < 3) out.push(...conditionArbs(a.t.attrs, expr, `${has} && `, depth + 1));
  }
  return out;
}

interface Case {
  readonly schemaText: string;
  readonly policies: readonly string[];
  readonly contexts: readonly Sent[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .tuple(recordArb(2), fc.boolean(), fc.boolean())
  .chain(([context, qualify, commonContext]) => {
    const commons: string[] = [];
    const ctxType: T = context.k === 'record' ? { ...context, ...(commonContext ? { common: 'pending' } : {}) } : context;
    const ctxText = typeText(ctxType, commons, qualify);
    const schemaText = [
      `namespace ${NS} {`,
      '  entity user; entity doc; entity E; entity F;',
      ...commons.map((body, i) => `  type C${i} = ${body};`),
      `  action act appliesTo { principal: user, resource: doc, context: ${ctxText} };`,
      '}',
    ].join('\n');
    const conditions = conditionArbs((ctxType as Extract<T, { k: 'record' }>).attrs, 'context', '', 0);
    const policy = fc
      .tuple(fc.constantFrom('permit', 'forbid'), fc.oneof(...conditions))
      .map(([effect, when]) => `${effect} (principal, action, resource) when { ${when} };`);
    return fc.record({
      schemaText: fc.constant(schemaText),
      policies: fc.tuple(fc.constantFrom([], ['permit (principal, action, resource);']), fc.array(policy, { minLength: 1, maxLength: 4 })).map(([base, more]) => [...base, ...more]),
      contexts: fc.array(recordValueArb((ctxType as Extract<T, { k: 'record' }>).attrs), { minLength: 6, maxLength: 6 }),
    });
  });

// ---- the comparison ------------------------------------------------------------------

const principal = { type: `${NS}::user`, id: 'u' };
const resource = { type: `${NS}::doc`, id: 'd' };

/** Cedar's own answer, or undefined when the policies do not validate (Outpost refuses them too). */
function cedarAnswer(c: Case, ids: readonly string[], context: unknown) {
  return cedar.isAuthorized({
    principal,
    action: { type: `${NS}::Action`, id: 'act' },
    resource,
    context: context as Record<string, cedar.CedarValueJson>,
    schema: c.schemaText,
    validateRequest: true,
    policies: { staticPolicies: Object.fromEntries(ids.map((id, i) => [id, c.policies[i] as string])) },
    entities: [],
  });
}

const compiled: CompiledPolicy[] = [];
afterEach(() => compiled.splice(0).forEach((p) => p.release()));

describe('Outpost decides a context as cedar-wasm does', () => {
  it('for random schemas, policies and contexts of every type a schema allows', () => {
    let compared = 0;
    let refused = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const policy = compilePolicyImage(createPolicyImage('diff', { 'schema.cedarschema': c.schemaText, 'p.cedar': c.policies.join('\n'), 'manifest.json': '{}' }));
        compiled.push(policy);
        expect(policy.policyIds).toHaveLength(c.policies.length);
        for (const { sent, reference } of c.contexts) {
          const ours = policy.isAuthorized({ principal, action: 'act', resource, context: sent as Record<string, unknown>, entities: [] });
          const theirs = cedarAnswer(c, policy.policyIds, reference);
          compared++;
          if (theirs.type === 'failure') {
            refused++;
            expect(ours).toEqual({ allowed: false, reasons: [], errors: theirs.errors.map((e) => expect.stringContaining(e.message)) });
          } else {
            const { decision, diagnostics } = theirs.response;
            expect({ allowed: ours.allowed, reasons: [...ours.reasons].sort(), errors: ours.errors.map((e) => e.slice(0, e.indexOf(': '))).sort() }).toEqual({
              allowed: decision === 'allow',
              reasons: [...diagnostics.reason].sort(),
              errors: diagnostics.errors.map((e) => e.policyId).sort(),
            });
          }
          // Undeclared attributes change neither the answer nor the cache key.
          expect(policy.contextKey('act', sent)).toBe(policy.contextKey('act', reference));
        }
        // Contexts with one cache key get one answer (Cedar lists the policies in no fixed order).
        const byKey = new Map<string, unknown>();
        for (const { sent } of c.contexts) {
          const key = policy.contextKey('act', sent);
          const { allowed, reasons, errors } = policy.isAuthorized({ principal, action: 'act', resource, context: sent as Record<string, unknown>, entities: [] });
          const answer = { allowed, reasons: [...reasons].sort(), errors: [...errors].sort() };
          if (byKey.has(key)) expect(answer).toEqual(byKey.get(key));
          byKey.set(key, answer);
        }
        policy.release();
        compiled.pop();
      }),
      { numRuns: 40 },
    );
    // The cases exercise both sides: contexts Cedar takes and contexts it refuses.
    expect(refused).toBeGreaterThan(0);
    expect(compared - refused).toBeGreaterThan(0);
  });
});
