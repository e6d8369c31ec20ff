import { edgeMessageSchema, parseFrame, relayMessageSchema } from '../../src/relay-protocol';

const status = { policy_name: 'rbac', policy_digest: `sha256:${'a'.repeat(64)}`, directory_revision: 3 };

describe('relay wire protocol', () => {
  it('accepts both command_result outcomes', () => {
    expect(parseFrame(edgeMessageSchema, JSON.stringify({ type: 'command_result', request_id: 'r1', ok: true, status }))).toEqual({
      type: 'command_result',
      request_id: 'r1',
      ok: true,
      status,
    });
    const failed = { type: 'command_result', request_id: 'r2', ok: false, error: { code: 'invalid_image', message: 'x.cedar:3: bad' } };
    expect(parseFrame(edgeMessageSchema, Buffer.from(JSON.stringify(failed)))).toEqual(failed);
  });

  it('refuses a result that mixes the two outcomes or lacks its payload', () => {
    expect(parseFrame(edgeMessageSchema, JSON.stringify({ type: 'command_result', request_id: 'r', ok: true }))).toBeUndefined();
    expect(
      parseFrame(edgeMessageSchema, JSON.stringify({ type: 'command_result', request_id: 'r', ok: false, status })),
    ).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"type":'],
    ['unknown type', JSON.stringify({ type: 'hello' })],
    ['bad digest', JSON.stringify({ type: 'status', status: { ...status, policy_digest: 'md5:x' } })],
    ['negative revision', JSON.stringify({ type: 'status', status: { ...status, directory_revision: -1 } })],
    ['a number instead of text', 42],
  ])('returns undefined for %s', (_name, frame) => {
    expect(parseFrame(edgeMessageSchema, frame)).toBeUndefined();
  });

  it('checks decision samples: sample_request, and chunks of strict entries (no member beyond the request, e.g. a token)', () => {
    expect(parseFrame(relayMessageSchema, JSON.stringify({ type: 'sample_request', request_id: 's1' }))).toEqual({ type: 'sample_request', request_id: 's1' });
    const entry = { principal: 'u1', action: 'GET', resource: { type: 'Resource', id: 'r' }, decision: 'allow', policy_digest: status.policy_digest, directory_revision: 3 };
    const chunk = { type: 'sample_chunk', request_id: 's1', entries: [entry], done: true, status };
    expect(parseFrame(edgeMessageSchema, JSON.stringify(chunk))).toEqual(chunk);
    expect(parseFrame(edgeMessageSchema, JSON.stringify({ ...chunk, entries: [{ ...entry, token: 'eyJ…' }] }))).toBeUndefined();
    expect(parseFrame(edgeMessageSchema, JSON.stringify({ ...chunk, entries: [{ ...entry, decision: 'maybe' }] }))).toBeUndefined();
    expect(parseFrame(edgeMessageSchema, JSON.stringify({ ...chunk, entries: [{ ...entry, principal: 'x'.repeat(257) }] }))).toBeUndefined();
  });

  it('checks relay frames: commands are one of the two known names', () => {
    expect(parseFrame(relayMessageSchema, JSON.stringify({ type: 'command', request_id: 'a', command: 'discovery' }))).toBeDefined();
    expect(parseFrame(relayMessageSchema, JSON.stringify({ type: 'command', request_id: 'a', command: 'reboot' }))).toBeUndefined();
    // timeout_ms: how long the relay waits for the result, a positive whole number of ms, optional.
    expect(parseFrame(relayMessageSchema, JSON.stringify({ type: 'command', request_id: 'a', command: 'discovery', timeout_ms: 10_000 }))).toMatchObject({ timeout_ms: 10_000 });
    for (const bad of [0, -1, 1.5, '10000']) {
      expect(parseFrame(relayMessageSchema, JSON.stringify({ type: 'command', request_id: 'a', command: 'discovery', timeout_ms: bad }))).toBeUndefined();
    }
  });
});
