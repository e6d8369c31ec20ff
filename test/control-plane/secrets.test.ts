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
