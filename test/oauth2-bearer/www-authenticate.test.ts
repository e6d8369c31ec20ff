import { buildBearerChallenge, quoteHeaderValue } from '@outpost/express-authz';

describe('buildBearerChallenge (RFC 6750 §3)', () => {
  it('is a bare realm challenge when no error is given', () => {
    expect(buildBearerChallenge({ realm: 'api' })).toBe('Bearer realm="api"');
  });

  it('lists realm, error, error_description and scope in order', () => {
    expect(buildBearerChallenge({ realm: 'api', error: 'invalid_token', error_description: 'expired', scope: 'a b' })).toBe(
      'Bearer realm="api", error="invalid_token", error_description="expired", scope="a b"',
    );
  });

  it('escapes backslash and double quote', () => {
    expect(quoteHeaderValue('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
  });

  it('replaces CR, LF and non-ASCII so a value cannot inject a header', () => {
    expect(quoteHeaderValue('a\r\nSet-Cookie: x=1 é')).toBe('"a??Set-Cookie: x=1 ?"');
  });
});
