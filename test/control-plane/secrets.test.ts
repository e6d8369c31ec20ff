import { hashSecret, secretMatches } from '../../src/control-plane/secrets';

describe('secretMatches', () => {
  it('accepts the secret whose hash is stored, and nothing else', () => {
    const stored = hashSecret('s3cret');
    expect(secretMatches('s3cret', stored)).toBe(true);
    expect(secretMatches('s3cret ', stored)).toBe(false);
    expect(secretMatches('', stored)).toBe(false);
  });

  // The unknown-owner path compares against a fixed dummy hash so both paths cost the same.
  // The secret behind that dummy must never open anything.
  it('refuses every secret when the owner is unknown, even the one behind the dummy hash', () => {
    expect(secretMatches('anything', undefined)).toBe(false);
    expect(secretMatches('outpost-unknown-owner', undefined)).toBe(false);
  });

  it('refuses every secret against a stored hash of the wrong length, even the dummy one', () => {
    const truncated = hashSecret('s3cret').subarray(0, 16);
    expect(secretMatches('s3cret', truncated)).toBe(false);
    expect(secretMatches('outpost-unknown-owner', truncated)).toBe(false);
  });
});

// Timing cannot be asserted without a wall clock, so the test pins the mechanism instead: every
// answer comes from exactly one crypto.timingSafeEqual over two full-length hashes, and no
// early-exit comparison (Buffer#equals, Buffer.compare, ===) decides. Swapping the compare for
// `equals` fails here.
describe('secretMatches compares in constant time', () => {
  // The module object itself (not an import copy), so the spy sees the call secrets.ts makes.
  const crypto = require('node:crypto') as typeof import('node:crypto');
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['the right secret', 's3cret', true],
    ['a wrong secret', 'wrong', false],
    ['an unknown owner', 'anything', undefined],
  ])('%s: one timingSafeEqual of two 32-byte hashes decides, nothing else compares', (_name, presented, known) => {
    const safe = jest.spyOn(crypto, 'timingSafeEqual');
    const equals = jest.spyOn(Buffer.prototype, 'equals');
    const compare = jest.spyOn(Buffer, 'compare');
    const instanceCompare = jest.spyOn(Buffer.prototype, 'compare');
    const stored = known === undefined ? undefined : hashSecret('s3cret');
    expect(secretMatches(presented, stored)).toBe(known === true);
    expect(safe).toHaveBeenCalledTimes(1);
    const [a, b] = safe.mock.calls[0]!;
    expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    expect(equals).not.toHaveBeenCalled();
    expect(compare).not.toHaveBeenCalled();
    expect(instanceCompare).not.toHaveBeenCalled();
  });
});
