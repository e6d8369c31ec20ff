/**
 * The relay's side of decision records and "Try a decision" (docs/reference/api.md, "Decision
 * records", "Relay WebSocket"): a registered edge's `decisions` frame is stored under the tenant
 * and instance of its connection, whatever the records say; a frame outside the bounds is a
 * `bad_frame` and stores nothing; a tried decision is one `try_decision` answered by `try_result`,
 * bounded per edge.
 */
import { openDecisionRepository } from '../../src/decision-store';
import { MAX_PENDING_TRIES } from '../../src/relay/edge-requests';
import { decisionRecord as record } from '../helpers/decision-record';
import { waitFor } from '../integration/stack-client';
import { startRelayKit, type RelayKit } from './relay-kit';

let kit: RelayKit;
beforeAll(async () => {
  kit = await startRelayKit();
});
afterAll(async () => {
  await kit.stop();
});

describe('decisions frames', () => {
  it("are stored under the connection's tenant and the registered instance, and nowhere else", async () => {
    const edge = await kit.edge(kit.a);
    edge.sendJson({ type: 'decisions', records: [record(1), record(2, { decision: 'deny', reasons: [{ policy: null, comment: 'no policy permits' }] })] });
    const stored = await waitFor('the records', async () => {
      const page = await openDecisionRepository(kit.store).list(kit.a.tenantId, {}, { limit: 10 });
      return page.length === 2 ? page : undefined;
    });
    expect(stored.map((d) => [d.request_id, d.instance_id, d.decision])).toEqual([
      ['req-2', edge.instanceId, 'deny'],
      ['req-1', edge.instanceId, 'allow'],
    ]);
    expect(await openDecisionRepository(kit.store).count(kit.b.tenantId)).toBe(0);
  });

  it('outside the bounds are a bad_frame, and store nothing', async () => {
    const edge = await kit.edge(kit.b);
    const bad = [
      { type: 'decisions', records: [] },
      { type: 'decisions', records: Array.from({ length: 101 }, (_, i) => record(i)) },
      { type: 'decisions', records: [record(1, { action: 'DELETE\u001b[2J' })] },
      { type: 'decisions', records: [{ ...record(1), tenant_id: kit.a.tenantId }] },
      { type: 'decisions', records: [record(1, { reasons: Array.from({ length: 9 }, () => ({ policy: null, comment: 'x' })) })] },
      { type: 'decisions', records: [record(1, { request_id: 'r'.repeat(257) })] },
    ];
    // Three a socket: past five bad frames the relay closes it (MAX_BAD_FRAMES).
    const other = await kit.edge(kit.b);
    for (const [i, frame] of bad.entries()) {
      const by = i < 3 ? edge : other;
      by.sendJson(frame);
      expect(await by.next()).toEqual({ type: 'error', code: 'bad_frame', message: 'the frame is not JSON or not a known message' });
    }
    // A good frame after them is stored: nothing of the bad ones is.
    other.sendJson({ type: 'decisions', records: [record(99)] });
    await waitFor('the good record', async () => ((await openDecisionRepository(kit.store).count(kit.b.tenantId)) === 1 ? true : undefined));
    expect((await openDecisionRepository(kit.store).list(kit.b.tenantId, {}, { limit: 10 })).map((d) => d.request_id)).toEqual(['req-99']);
  });
});

describe('try_decision', () => {
  const request = { principal: 'rick@the-citadel.com', action: 'DELETE', resource: { type: 'Resource', id: 'x' } };
  const answer = { principal: { id: 'u-rick', email: 'rick@the-citadel.com' }, decision: 'allow' as const, reasons: [{ policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' }], policy_digest: `sha256:${'d'.repeat(64)}`, directory_revision: 2 };

  it("is sent to the edge and answered with its try_result; another tenant's instance is unknown", async () => {
    const edge = await kit.edge(kit.a);
    const tried = kit.relay.tryDecision(kit.a.tenantId, edge.instanceId, request);
    const frame = await edge.next();
    expect(frame).toEqual({ type: 'try_decision', request_id: expect.any(String), request });
    edge.sendJson({ type: 'try_result', request_id: (frame as { request_id: string }).request_id, ...answer });
    expect(await tried).toEqual(answer);
    await expect(kit.relay.tryDecision(kit.b.tenantId, edge.instanceId, request)).rejects.toMatchObject({ status: 404, code: 'instance_not_found' });
    // An answer nobody waits for changes nothing.
    edge.sendJson({ type: 'try_result', request_id: 'never-asked', ...answer });
    expect(await edge.next()).toEqual({ type: 'error', code: 'unknown_request', message: 'no tried decision is waiting for this request id' });
  });

  it(`passes on the edge's failure as exec does, and refuses a try past ${MAX_PENDING_TRIES} waiting on one edge`, async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'never' });
    const failing = kit.relay.tryDecision(kit.a.tenantId, edge.instanceId, request);
    const frame = (await edge.next()) as { request_id: string };
    edge.sendJson({ type: 'command_result', request_id: frame.request_id, ok: false, error: { code: 'no_image', message: 'the edge has no policy image yet' } });
    await expect(failing).rejects.toMatchObject({ status: 502, code: 'no_image' });

    const waiting = Array.from({ length: MAX_PENDING_TRIES }, () => kit.relay.tryDecision(kit.a.tenantId, edge.instanceId, request));
    await expect(kit.relay.tryDecision(kit.a.tenantId, edge.instanceId, request)).rejects.toMatchObject({ status: 429, code: 'too_many_pending' });
    for (let i = 0; i < MAX_PENDING_TRIES; i++) {
      const next = (await edge.next()) as { request_id: string };
      edge.sendJson({ type: 'try_result', request_id: next.request_id, ...answer });
    }
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: MAX_PENDING_TRIES }, () => answer));
  });
});
