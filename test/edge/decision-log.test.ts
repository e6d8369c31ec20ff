import { join } from 'node:path';
import { createLocalAuthorizer, type LocalDecision } from '../../src/decision';
import { createDecisionLog } from '../../src/decision-records/decision-log';
import { decisionLogMetrics } from '../../src/decision-records/decision-log-metrics';
import { createDecisionShipper } from '../../src/decision-records/ship-decisions';
import type { ActivePolicy } from '../../src/edge/edge-state';
import { compilePolicyImage, readPolicyFolder } from '../../src/policy';
import { DECISION_RECORD_LIMITS, MAX_FRAME_BYTES, decisionRecordSchema, edgeMessageSchema, type EdgeMessage } from '../../src/relay-protocol';
import { citadel, policiesDir, resourceRequest, userIds } from '../authorizer/citadel';

const directory = citadel();
const users = userIds(directory);
const image = readPolicyFolder(join(policiesDir, 'rbac'));
let active: ActivePolicy;
beforeAll(() => {
  active = { image, compiled: compilePolicyImage(image) };
});
afterAll(() => active.compiled.release());

function decide(principal: string, method: string, name = 'x'): { request: ReturnType<typeof resourceRequest>; decision: LocalDecision } {
  const authorizer = createLocalAuthorizer({ policy: () => active.compiled, directory: () => directory, cacheSize: 0 });
  const request = resourceRequest('rbac', principal, method, name);
  return { request, decision: authorizer.decideNow(request) };
}

describe('createDecisionLog', () => {
  it('turns a decision into a record: who (id and e-mail), what, the answer, why, the state, the request id and the latency', () => {
    const log = createDecisionLog('rbac', 10, () => 1_700_000_000_000);
    const rick = decide(users.rick, 'DELETE');
    const morty = decide('morty@the-citadel.com', 'DELETE');
    log.record(rick.request, rick.decision, 'req-rick', 0.0125, active, directory);
    log.record(morty.request, morty.decision, 'req-morty', 0.5, active, directory);
    const records = log.take(10);
    expect(records).toEqual([
      {
        time: 1_700_000_000_000,
        request_id: 'req-rick',
        app: 'rbac',
        principal: { id: users.rick, email: 'rick@the-citadel.com' },
        action: 'DELETE',
        resource: { type: 'Resource', id: 'x' },
        decision: 'allow',
        reasons: [{ policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' }],
        policy_digest: image.digest,
        directory_revision: directory.revision,
        latency_us: 13,
      },
      // Named by e-mail in the request, recorded by directory id with the e-mail.
      expect.objectContaining({ request_id: 'req-morty', principal: { id: users.morty, email: 'morty@the-citadel.com' }, decision: 'deny', reasons: [{ policy: null, comment: 'no policy permits' }], latency_us: 500 }),
    ]);
    for (const record of records) expect(decisionRecordSchema.parse(record)).toEqual(record);
    expect(log.size).toBe(0);
    expect(log.take(10)).toEqual([]);
  });

  it('keeps the newest records when full and counts the oldest it dropped', () => {
    const log = createDecisionLog('sidecar', 3);
    const { request, decision } = decide(users.beth, 'GET');
    for (let i = 0; i < 5; i++) log.record(request, decision, `r${i}`, 0, active, directory);
    expect(log.size).toBe(3);
    expect(log.dropped).toBe(2);
    expect(log.take(2).map((r) => r.request_id)).toEqual(['r2', 'r3']);
    log.record(request, decision, 'r5', 0, active, directory);
    expect(log.take(10).map((r) => r.request_id)).toEqual(['r4', 'r5']);
    const metrics = decisionLogMetrics(log);
    expect(metrics).toContain('outpost_edge_decision_records_dropped_total 2\n');
    expect(metrics).toContain('outpost_edge_decision_records_queued 0\n');
  });

  it('cuts long text to the wire bounds and replaces control characters, so the record is kept', () => {
    const log = createDecisionLog('sidecar', 3);
    const { request, decision } = decide(users.beth, 'GET', 'x');
    log.record({ ...request, resource: { type: 'Resource', id: `a\u001b[2J${'y'.repeat(1000)}` } }, decision, 'r\u202e1', 0, active, directory);
    const [record] = log.take(1);
    expect(record!.resource.id).toHaveLength(DECISION_RECORD_LIMITS.maxText);
    expect(record!.resource.id.startsWith('a [2J')).toBe(true);
    expect(record!.request_id).toBe('r 1');
  });

  it('drops and counts a record the wire refuses (an empty id), and ships the rest', () => {
    const log = createDecisionLog('sidecar', 5);
    const { request, decision } = decide(users.beth, 'GET', 'x');
    log.record(request, decision, '', 0, active, directory);
    log.record({ ...request, resource: { type: 'Resource', id: '' } }, decision, 'r-empty-resource', 0, active, directory);
    log.record(request, decision, 'r-kept', 0, active, directory);
    const records = log.take(5);
    expect(records.map((r) => r.request_id)).toEqual(['r-kept']);
    expect(log.dropped).toBe(2);
    for (const record of records) expect(decisionRecordSchema.parse(record)).toEqual(record);
  });
});

describe('createDecisionShipper', () => {
  function sender() {
    const sent: EdgeMessage[] = [];
    return { sent, relay: { connected: true, send: (m: EdgeMessage) => void sent.push(edgeMessageSchema.parse(m)) } };
  }

  it('sends nothing while disconnected and keeps the records for later; then sends each once, in frames within the bounds', () => {
    const log = createDecisionLog('rbac', 1000);
    const { request, decision } = decide(users.rick, 'DELETE');
    for (let i = 0; i < 250; i++) log.record(request, decision, `r${i}`, 0, active, directory);
    const { sent, relay } = sender();
    let connected: typeof relay | undefined;
    const shipper = createDecisionShipper(log, () => connected);
    expect(shipper.flush()).toBe(false);
    expect(log.size).toBe(250);
    connected = relay;
    expect(shipper.flush()).toBe(true);
    expect(sent.map((m) => (m.type === 'decisions' ? m.records.length : 0))).toEqual([100, 100, 50]);
    for (const frame of sent) expect(Buffer.byteLength(JSON.stringify(frame))).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(shipper.shipped).toBe(250);
    shipper.flush();
    expect(sent).toHaveLength(3);
    const ids = sent.flatMap((m) => (m.type === 'decisions' ? m.records.map((r) => r.request_id) : []));
    expect(new Set(ids).size).toBe(250);
  });

  it('splits by size too: large records make smaller frames, none over the frame limit', () => {
    const log = createDecisionLog('rbac', 1000);
    const { request, decision } = decide(users.rick, 'DELETE');
    const big = { ...request, action: 'DELETE', resource: { type: 'R'.repeat(300), id: 'é'.repeat(300) } };
    for (let i = 0; i < 100; i++) log.record(big, decision, `${i}-${'q'.repeat(250)}`, 0, active, directory);
    const { sent, relay } = sender();
    const shipper = createDecisionShipper(log, () => relay);
    while (log.size > 0) shipper.flush();
    expect(sent.length).toBeGreaterThan(1);
    for (const frame of sent) expect(Buffer.byteLength(JSON.stringify(frame))).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(sent.reduce((n, m) => n + (m.type === 'decisions' ? m.records.length : 0), 0)).toBe(100);
  });
});
