// The console's live decision streams are counted per user, per tenant and per node, each bound
// below the next, so one user (or one tenant's users) can never take the node's every stream.
import { DECISION_STREAM, createStreamSlots } from '../../src/decision-store/stream-decisions';

const refusal = (scope: string) => ({ status: 429, code: 'too_many_streams', message: `too many decision streams are open ${scope}; try again shortly`, headers: { 'Retry-After': '5' } });

describe('decision stream slots', () => {
  it('keeps each bound below the next: user < tenant < node', () => {
    expect(DECISION_STREAM.maxPerUser).toBeLessThan(DECISION_STREAM.maxPerTenant);
    expect(DECISION_STREAM.maxPerTenant).toBeLessThan(DECISION_STREAM.maxOpen);
  });

  it("refuses a user past their bound, while their tenant's other users and other tenants still open", () => {
    const slots = createStreamSlots({ maxOpen: 10, maxPerTenant: 4, maxPerUser: 2 });
    slots.take('t1', 'u1');
    const second = slots.take('t1', 'u1');
    expect(() => slots.take('t1', 'u1')).toThrow(expect.objectContaining(refusal('for you')));
    slots.take('t1', 'u2');
    slots.take('t1', 'u2');
    // The tenant's bound: a third user of t1 is refused, a user of t2 is not.
    expect(() => slots.take('t1', 'u3')).toThrow(expect.objectContaining(refusal('for this tenant')));
    slots.take('t2', 'u3');
    // Given back (twice is once): u1 may open one more, and no more.
    second();
    second();
    slots.take('t1', 'u1');
    expect(() => slots.take('t1', 'u1')).toThrow(expect.objectContaining(refusal('for you')));
  });

  it('refuses past the node bound whoever asks, and frees the slot given back', () => {
    const slots = createStreamSlots({ maxOpen: 3, maxPerTenant: 3, maxPerUser: 3 });
    const releases = [slots.take('t1', 'u1'), slots.take('t2', 'u2'), slots.take('t3', 'u3')];
    expect(() => slots.take('t4', 'u4')).toThrow(expect.objectContaining(refusal('on this node')));
    releases[0]!();
    expect(() => slots.take('t4', 'u4')).not.toThrow();
  });
});
