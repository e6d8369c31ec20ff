import fc from 'fast-check';
import { edgeMessageSchema, quickCommandResult } from '../../src/relay-protocol';

// The hand check may only ever agree with zod: whatever it accepts, the edge message schema
// accepts and parses to the same value. Frames are generated near the edges of every rule
// (lengths, patterns, control characters, unknown and reserved keys, wrong types, nulls).

const DIGEST = `sha256:${'a'.repeat(64)}`;
const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const anything: fc.Arbitrary<unknown> = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }));
/** One of `valid` nine times in ten, else one of `invalid` or anything at all. */
const pick = (valid: readonly unknown[], invalid: readonly unknown[]) =>
  fc.oneof({ weight: 18, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) }, { weight: 1, arbitrary: anything });
/** `fields` whole, now and then one left out, or one more (an unknown or reserved key). */
function shape(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const whole = fc.record(fields);
  const fewer = fc.record(fields, { requiredKeys: [] });
  // A computed `__proto__` key is an own member, as JSON.parse makes it.
  const extra = fc.tuple(whole, fc.constantFrom('extra', '__proto__', 'constructor', 'error'), anything).map(([r, k, v]) => ({ ...r, [k]: v }));
  return fc.oneof({ weight: 20, arbitrary: whole }, { weight: 1, arbitrary: fewer }, { weight: 1, arbitrary: extra }, { weight: 1, arbitrary: anything });
}

const status = shape({
  policy_name: pick(['rbac', '', 'p'.repeat(64), 'é', 'a b'], ['p'.repeat(65), 'a\u0007b', 'a\u202eb', 'a\nb']),
  policy_digest: pick([DIGEST, null], ['sha256:x', `sha256:${'A'.repeat(64)}`, 'md5:1', '']),
  directory_revision: pick([0, 1, 7, Number.MAX_SAFE_INTEGER], [-1, 1.5, Number.MAX_SAFE_INTEGER + 2, '3', Infinity]),
});
const frame = shape({
  type: pick(['command_result'], ['status', 'command', 'Command_result']),
  request_id: pick(['1', 'r'.repeat(64), 'a-b'], ['', 'r'.repeat(65), 1]),
  ok: pick([true], [false, 'true', 1]),
  status,
});

describe('quickCommandResult', () => {
  it('accepts only what zod accepts, and returns what zod returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(frame, (json) => {
        // As a frame arrives: JSON text, parsed (so "__proto__" is an own key, as JSON.parse makes it).
        const parsed = JSON.parse(JSON.stringify(json) ?? 'null') as unknown;
        const quick = quickCommandResult(parsed);
        if (quick === undefined) return;
        accepted += 1;
        const zod = edgeMessageSchema.safeParse(parsed);
        expect(zod.success).toBe(true);
        expect(quick).toEqual(zod.data);
      }),
      { numRuns: 5000 },
    );
    // Most generated frames are valid: the comparison above is not vacuous.
    expect(accepted).toBeGreaterThan(1000);
  });

  it('leaves a failed result, another frame or an unknown member to zod', () => {
    const ok = { type: 'command_result', request_id: 'r', ok: true, status: { policy_name: 'rbac', policy_digest: DIGEST, directory_revision: 1 } };
    expect(quickCommandResult(ok)).toEqual(ok);
    expect(quickCommandResult({ type: 'command_result', request_id: 'r', ok: false, error: { code: 'x', message: 'y' } })).toBeUndefined();
    expect(quickCommandResult({ type: 'status', status: ok.status })).toBeUndefined();
    expect(quickCommandResult({ ...ok, note: 1 })).toBeUndefined();
    expect(quickCommandResult({ ...ok, status: { ...ok.status, note: 1 } })).toBeUndefined();
    expect(quickCommandResult(JSON.parse('{"type":"command_result","request_id":"r","ok":true,"status":{"policy_name":"p","policy_digest":null,"directory_revision":0},"__proto__":{}}'))).toBeUndefined();
  });
});
