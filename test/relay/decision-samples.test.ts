/**
 * The relay's side of a decision sample (docs/reference/api.md, "Dry run"): a `sample_request` to one
 * edge, its `sample_chunk` frames assembled in order, and the same errors as exec.
 */
import { INSTANCE_REGISTRATIONS_PATH, MAX_PENDING_SAMPLES } from '../../src/relay';
import { DECISION_SAMPLE_LIMITS, type RelayMessage, type SampledDecision } from '../../src/relay-protocol';
import type { HttpError } from '../../src/http';
import { EDGE_STATUS, type FakeEdge } from './fake-edge';
import { startRelayKit, type RelayKit } from './relay-kit';

const entry = (n: number): SampledDecision => ({
  principal: `user-${n}`,
  action: 'GET',
  resource: { type: 'Resource', id: `r-${n}` },
  decision: n % 2 === 0 ? 'allow' : 'deny',
  policy_digest: EDGE_STATUS.policy_digest!,
  directory_revision: 3,
});
const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => entry(from + i));

/** The sample request the relay sent to `edge`. */
async function sampleRequest(edge: FakeEdge): Promise<string> {
  const frame: RelayMessage = await edge.next();
  if (frame.type !== 'sample_request') throw new Error(`expected sample_request, got ${JSON.stringify(frame)}`);
  return frame.request_id;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: HttpError) => ({ status: err.status, code: err.code, message: err.message }),
  );

describe('relay.sampleDecisions', () => {
  let kit: RelayKit;
  beforeEach(async () => {
    kit = await startRelayKit({ execTimeoutMs: 300 });
  });
  afterEach(() => kit.stop());

  it('assembles the chunks in order and keeps the status of the last one', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-1' });
    const result = kit.relay.sampleDecisions(kit.a.tenantId, 'edge-1');
    const id = await sampleRequest(edge);
    edge.sendJson({ type: 'sample_chunk', request_id: id, entries: entries(0, 3), done: false, status: EDGE_STATUS });
    edge.sendJson({ type: 'sample_chunk', request_id: id, entries: entries(3, 2), done: true, status: { ...EDGE_STATUS, directory_revision: 4 } });
    expect(await result).toEqual({ status: { ...EDGE_STATUS, directory_revision: 4 }, entries: entries(0, 5) });
    // The last chunk's status is the registration's too.
    const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { info: { directory_revision: number } }[] };
    expect(listed.result[0].info.directory_revision).toBe(4);
  });

  it(`refuses a sample over ${DECISION_SAMPLE_LIMITS.maxEntries} entries as an edge failure`, async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-2' });
    const result = failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-2'));
    const id = await sampleRequest(edge);
    // Frames of 200 entries stay under the frame size; the sixth brings the sample to 1,001.
    for (let from = 0; from < 1000; from += 200) edge.sendJson({ type: 'sample_chunk', request_id: id, entries: entries(from, 200), done: false, status: EDGE_STATUS });
    edge.sendJson({ type: 'sample_chunk', request_id: id, entries: entries(1000, 1), done: true, status: EDGE_STATUS });
    expect(await result).toEqual({ status: 502, code: 'edge_error', message: 'the decision sample exceeds 1000 entries or 64 frames' });
    // The request is forgotten: a late chunk is unknown.
    edge.sendJson({ type: 'sample_chunk', request_id: id, entries: [], done: true, status: EDGE_STATUS });
    expect(await edge.next()).toEqual({ type: 'error', code: 'unknown_request', message: 'no sample is waiting for this request id' });
  });

  it(`refuses a sample over ${DECISION_SAMPLE_LIMITS.maxChunks} frames`, async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-3' });
    const result = failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-3'));
    const id = await sampleRequest(edge);
    for (let i = 0; i <= DECISION_SAMPLE_LIMITS.maxChunks; i++) edge.sendJson({ type: 'sample_chunk', request_id: id, entries: [], done: false, status: EDGE_STATUS });
    expect(await result).toMatchObject({ status: 502, code: 'edge_error' });
  });

  it('passes a failure the edge reports on as 502, and times out with 504', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-4' });
    const failed = failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-4'));
    const id = await sampleRequest(edge);
    edge.sendJson({ type: 'command_result', request_id: id, ok: false, error: { code: 'sample_failed', message: 'no sample here' } });
    expect(await failed).toEqual({ status: 502, code: 'sample_failed', message: 'no sample here' });

    const silent = failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-4'));
    await sampleRequest(edge);
    expect(await silent).toEqual({ status: 504, code: 'edge_timeout', message: 'the edge did not confirm the command within 300 ms' });
  });

  it('answers 404 for another tenant, 409 when not connected or dropped, 429 past the waiting bound', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-5' });
    expect(await failure(kit.relay.sampleDecisions(kit.b.tenantId, 'edge-5'))).toMatchObject({ status: 404, code: 'instance_not_found' });

    const waiting = Array.from({ length: MAX_PENDING_SAMPLES }, () => failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-5')));
    expect(await failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-5'))).toMatchObject({ status: 429, code: 'too_many_pending' });
    await edge.close();
    for (const w of waiting) expect(await w).toMatchObject({ status: 409, code: 'instance_disconnected' });
    expect(await failure(kit.relay.sampleDecisions(kit.a.tenantId, 'edge-5'))).toMatchObject({ status: 409, code: 'instance_not_connected' });
  });
});
