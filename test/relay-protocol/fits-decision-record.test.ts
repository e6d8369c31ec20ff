import fc from 'fast-check';
import { DECISION_RECORD_LIMITS, decisionRecordSchema, fitsDecisionRecord, type DecisionRecord } from '../../src/relay-protocol';
import { decisionRecord } from '../helpers/decision-record';

// The edge's hand check of a decision record must answer as the schema does, on records built
// in memory (as the edge builds them) and on records that went through JSON (an own
// `__proto__`). Records are generated near the edge of every rule: lengths, control and format
// characters, digests, whole numbers, bounds, missing, extra and undefined members, wrong types.

const DIGEST = `sha256:${'a'.repeat(64)}`;
const { maxText, maxReasons, maxReasonComment } = DECISION_RECORD_LIMITS;
const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const anything: fc.Arbitrary<unknown> = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }));
/** One of `valid` 24 times in 25 (a record has some fifteen such fields), else one of `invalid` or anything at all. */
const pick = (valid: readonly unknown[], invalid: readonly unknown[]) =>
  fc.oneof({ weight: 48, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) }, { weight: 1, arbitrary: anything });
/** `fields` whole, now and then one left out, one more (an unknown or reserved key), or something else. */
function shape(fields: Record<string, fc.Arbitrary<unknown>>, optional: readonly string[] = []): fc.Arbitrary<unknown> {
  const whole = fc.record(fields, { requiredKeys: Object.keys(fields).filter((k) => !optional.includes(k)) });
  const fewer = fc.record(fields, { requiredKeys: [] });
  const extra = fc.tuple(whole, fc.constantFrom('extra', '__proto__', 'constructor', 'email'), anything).map(([r, k, v]) => ({ ...(r as object), [k]: v }));
  return fc.oneof({ weight: 20, arbitrary: whole }, { weight: 1, arbitrary: fewer }, { weight: 1, arbitrary: extra }, { weight: 1, arbitrary: anything });
}

const id = pick(['r', 'x'.repeat(maxText), 'é', 'a b', '\u{1F600}'], ['', 'x'.repeat(maxText + 1), 'a\u0007b', 'a\u202eb', 'a\nb', 7]);
const count = pick([0, 1, 1_700_000_000_000, Number.MAX_SAFE_INTEGER], [-1, 1.5, Number.MAX_SAFE_INTEGER + 2, '3', Infinity, NaN]);
const reason = shape({
  policy: pick(['rbac.cedar:19', null], ['', 'p'.repeat(maxText + 1), 'a\tb']),
  comment: pick(['', 'no policy permits', 'c'.repeat(maxReasonComment)], ['c'.repeat(maxReasonComment + 1), 'a\u200bb', null]),
});
const record = shape({
  time: count,
  request_id: id,
  app: pick(['sidecar', 'rbac', 'a'.repeat(64)], ['', 'a'.repeat(65), 'a\u0000']),
  principal: shape({ id, email: pick(['rick@the-citadel.com', '', undefined, 'e'.repeat(maxText)], ['e'.repeat(maxText + 1), 'a\u0085b', null]) }, ['email']),
  action: id,
  resource: shape({ type: id, id }),
  decision: pick(['allow', 'deny'], ['Allow', 'permit', true]),
  reasons: fc.oneof({ weight: 10, arbitrary: fc.array(reason, { maxLength: maxReasons }) }, { weight: 1, arbitrary: fc.array(reason, { minLength: maxReasons + 1, maxLength: maxReasons + 2 }) }, { weight: 1, arbitrary: anything }),
  policy_digest: pick([DIGEST], ['sha256:x', `sha256:${'A'.repeat(64)}`, `${DIGEST}\n`, '']),
  directory_revision: count,
  latency_us: pick([0, 13, 0.5, 3_600_000_000], [-1, 3_600_000_001, Infinity, NaN, '1']),
});

describe('fitsDecisionRecord', () => {
  it('answers as the record schema does, before and after JSON', () => {
    let fit = 0;
    let unfit = 0;
    fc.assert(
      fc.property(record, (value) => {
        // Through JSON too, as a frame arrives: undefined members gone, "__proto__" an own key.
        for (const candidate of [value, JSON.parse(JSON.stringify(value) ?? 'null') as unknown]) {
          const schema = decisionRecordSchema.safeParse(candidate).success;
          expect({ candidate, fits: fitsDecisionRecord(candidate as DecisionRecord) }).toEqual({ candidate, fits: schema });
          if (schema) fit += 1;
          else unfit += 1;
        }
      }),
      { numRuns: 5000 },
    );
    // Both answers are common: the comparison is not vacuous either way.
    expect(fit).toBeGreaterThan(1000);
    expect(unfit).toBeGreaterThan(1000);
  });

  it('refuses a record with a member the schema does not know, even a reserved one', () => {
    const valid = decisionRecord(1);
    expect(fitsDecisionRecord(valid)).toBe(true);
    expect(fitsDecisionRecord({ ...valid, note: 1 } as DecisionRecord)).toBe(false);
    expect(fitsDecisionRecord(JSON.parse(`{${JSON.stringify(valid).slice(1, -1)},"__proto__":{}}`) as DecisionRecord)).toBe(false);
    expect(fitsDecisionRecord({ ...valid, principal: { id: 'u', name: 'U' } } as DecisionRecord)).toBe(false);
    expect(fitsDecisionRecord({ ...valid, resource: { type: 'Resource', id: 'x', owner: 'u' } } as DecisionRecord)).toBe(false);
    expect(fitsDecisionRecord({ ...valid, reasons: [{ ...valid.reasons[0]!, line: 1 }] } as unknown as DecisionRecord)).toBe(false);
  });
});
