import type { AuthorizationRequest, LocalDecision } from '../../src/decision';
import { createDecisionSample } from '../../src/edge/decision-sample';
import { sampleFrames } from '../../src/edge/sample-frames';
import { DECISION_SAMPLE_LIMITS, MAX_FRAME_BYTES, edgeMessageSchema, parseFrame } from '../../src/relay-protocol';

const DIGEST = `sha256:${'b'.repeat(64)}`;
const STATUS = { policy_name: 'rbac', policy_digest: DIGEST, directory_revision: 4 };

const request = (principal: string, action = 'GET', attributes?: Record<string, string>): AuthorizationRequest => ({
  principal,
  action,
  resource: attributes === undefined ? { type: 'Resource', id: 'r' } : { type: 'Resource', id: 'r', attributes },
  policyPath: `rbac.${action}`,
});
const decision = (allowed: boolean, directoryRevision = 4): LocalDecision => ({ allowed, policyPath: 'rbac.GET', reasons: [], policyDigest: DIGEST, directoryRevision, cached: false });
const keyOf = (r: AuthorizationRequest) => `${r.principal}|${r.action}|${JSON.stringify(r.resource.attributes ?? {})}`;
const record = (sample: ReturnType<typeof createDecisionSample>, r: AuthorizationRequest, d = decision(true)) => sample.record(r, keyOf(r), d);

describe('createDecisionSample', () => {
  it('holds distinct requests, newest first, each with the latest decision made for it', () => {
    const sample = createDecisionSample(10);
    record(sample, request('morty'), decision(false, 1));
    record(sample, request('rick'));
    record(sample, request('morty'), decision(true, 2));
    expect(sample.size).toBe(2);
    expect(sample.entries()).toEqual([
      { principal: 'rick', action: 'GET', resource: { type: 'Resource', id: 'r' }, decision: 'allow', policy_digest: DIGEST, directory_revision: 4 },
      { principal: 'morty', action: 'GET', resource: { type: 'Resource', id: 'r' }, decision: 'allow', policy_digest: DIGEST, directory_revision: 2 },
    ]);
  });

  it('is bounded: a new request past the capacity takes the oldest slot', () => {
    const sample = createDecisionSample(3);
    for (const p of ['a', 'b', 'c', 'd', 'e']) record(sample, request(p));
    expect(sample.size).toBe(3);
    expect(sample.entries().map((e) => e.principal)).toEqual(['e', 'd', 'c']);
    // A request seen again is updated where it is, not added.
    record(sample, request('d'), decision(false));
    expect(sample.entries().map((e) => [e.principal, e.decision])).toEqual([['e', 'allow'], ['d', 'deny'], ['c', 'allow']]);
    record(sample, request('f'));
    expect(sample.entries().map((e) => e.principal)).toEqual(['f', 'e', 'd']);
  });

  it(`keeps ${DECISION_SAMPLE_LIMITS.maxEntries} by default`, () => {
    const sample = createDecisionSample();
    for (let i = 0; i < DECISION_SAMPLE_LIMITS.maxEntries + 50; i++) record(sample, request(`user-${i}`));
    expect(sample.size).toBe(DECISION_SAMPLE_LIMITS.maxEntries);
    expect(sample.entries()).toHaveLength(DECISION_SAMPLE_LIMITS.maxEntries);
  });

  it('sends resource attributes as recorded, and leaves out an entry over the wire bounds', () => {
    const sample = createDecisionSample(10);
    record(sample, request('owner', 'PUT', { owner: 'owner' }));
    record(sample, request('x'.repeat(DECISION_SAMPLE_LIMITS.maxTextLength + 1)));
    expect(sample.entries()).toEqual([expect.objectContaining({ principal: 'owner', resource: { type: 'Resource', id: 'r', attributes: { owner: 'owner' } } })]);
    expect(sample.size).toBe(2);
  });
});

describe('sampleFrames', () => {
  const wide = (n: number) => ({
    principal: `user-${n}`,
    action: 'GET',
    resource: { type: 'Resource', id: 'x'.repeat(250), attributes: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`a${i}`, 'v'.repeat(250)])) },
    decision: 'allow' as const,
    policy_digest: DIGEST,
    directory_revision: 4,
  });

  it('is one empty done frame for an empty sample', () => {
    expect(sampleFrames('r1', [], STATUS)).toEqual([{ type: 'sample_chunk', request_id: 'r1', entries: [], done: true, status: STATUS }]);
  });

  it('splits a sample into frames the relay accepts, in order, the last one done', () => {
    const entries = Array.from({ length: 60 }, (_, i) => wide(i));
    const frames = sampleFrames('r2', entries, STATUS);
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames) {
      const text = JSON.stringify(frame);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
      expect(parseFrame(edgeMessageSchema, text)).toEqual(frame);
    }
    expect(frames.flatMap((f) => f.entries)).toEqual(entries);
    expect(frames.map((f) => f.done)).toEqual([...frames.slice(1).map(() => false), true]);
  });

  it(`stops at ${DECISION_SAMPLE_LIMITS.maxChunks} frames, leaving the oldest entries out`, () => {
    const entries = Array.from({ length: DECISION_SAMPLE_LIMITS.maxEntries }, (_, i) => wide(i));
    const frames = sampleFrames('r3', entries, STATUS);
    expect(frames).toHaveLength(DECISION_SAMPLE_LIMITS.maxChunks);
    const sent = frames.flatMap((f) => f.entries);
    expect(sent).toEqual(entries.slice(0, sent.length));
    expect(frames[frames.length - 1]!.done).toBe(true);
  });
});
