import { getBearerToken, InvalidRequestError, UnauthorizedError } from '@outpost/express-authz';

const REALM = 'test';

function expectError(fn: () => unknown, type: typeof InvalidRequestError | typeof UnauthorizedError, status: number) {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(type);
  expect((caught as InvalidRequestError).status).toBe(status);
  return caught as InvalidRequestError;
}

describe('getBearerToken (RFC 6750 §2)', () => {
  it('returns the token of a Bearer header, scheme case-insensitive', () => {
    expect(getBearerToken({ authorization: ['Bearer abc.def-_~+/=='] })).toBe('abc.def-_~+/==');
    expect(getBearerToken({ authorization: ['bEaReR xyz'] })).toBe('xyz');
  });

  it('takes one or more spaces after the scheme: RFC 6750 §2.1 is "Bearer" 1*SP b64token', () => {
    expect(getBearerToken({ authorization: ['Bearer  abc'] })).toBe('abc');
    expect(getBearerToken({ authorization: ['Bearer     abc'] })).toBe('abc');
  });

  it('answers 401 with a bare challenge when there is no header', () => {
    const err = expectError(() => getBearerToken({ authorization: undefined }, REALM), UnauthorizedError, 401);
    expect(err.code).toBe('unauthorized');
    expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="test"' });
  });

  it('treats an empty header or another scheme as no bearer credentials (401)', () => {
    expectError(() => getBearerToken({ authorization: [''] }), UnauthorizedError, 401);
    expectError(() => getBearerToken({ authorization: ['Basic dXNlcjpwYXNz'] }), UnauthorizedError, 401);
  });

  it.each([
    ['Bearer', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Bearer a b', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Bearer a,b', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Bearer x, Basic y', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Basic y, Bearer x', 'the Authorization header must hold exactly one credential'],
    ['"Bearer" x', 'the Authorization header is malformed'],
  ])('rejects %j with 400 invalid_request', (header, message) => {
    const err = expectError(() => getBearerToken({ authorization: [header] }, REALM), InvalidRequestError, 400);
    expect(err.toBody()).toEqual({ error: 'invalid_request', error_description: message });
    expect(err.headers['WWW-Authenticate']).toBe(
      `Bearer realm="test", error="invalid_request", error_description="${message.replace(/"/g, '\\"')}"`,
    );
  });

  it('rejects two Authorization headers', () => {
    const err = expectError(() => getBearerToken({ authorization: ['Bearer a', 'Bearer b'] }), InvalidRequestError, 400);
    expect(err.message).toBe('send exactly one Authorization header');
  });

  it('rejects a token sent in the header and the query or form body', () => {
    const twoWays = 'the access token was sent two ways; send it only in the Authorization header';
    expect(expectError(() => getBearerToken({ authorization: ['Bearer a'], query: { access_token: 'a' } }), InvalidRequestError, 400).message).toBe(twoWays);
    expect(
      expectError(() => getBearerToken({ authorization: ['Bearer a'], body: { access_token: 'a' }, formEncoded: true }), InvalidRequestError, 400).message,
    ).toBe(twoWays);
  });

  it('refuses query and form-body tokens on their own', () => {
    const message = 'send the access token in the Authorization header, not the query or body';
    expect(expectError(() => getBearerToken({ authorization: undefined, query: { access_token: 'a' } }), InvalidRequestError, 400).message).toBe(message);
  });

  it('ignores an access_token field of a body that is not form-encoded', () => {
    expect(getBearerToken({ authorization: ['Bearer a'], body: { access_token: 'x' }, formEncoded: false })).toBe('a');
  });
});

describe('getBearerToken with known tokens (a verified-token cache)', () => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyaWNrIn0.c2ln-_~+/==';
  /** What the parse answers: the token, or the error's status and message. */
  const outcome = (request: Parameters<typeof getBearerToken>[0], known?: (t: string) => boolean) => {
    try {
      return getBearerToken(request, REALM, known);
    } catch (err) {
      return [(err as InvalidRequestError).status, (err as InvalidRequestError).message];
    }
  };

  it('answers exactly as without them, for every shape of request around a known token', () => {
    const verified = new Set([getBearerToken({ authorization: [`Bearer ${token}`] })]);
    const asked: string[] = [];
    const known = (t: string) => (asked.push(t), verified.has(t));
    const requests = [
      { authorization: [`Bearer ${token}`] },
      { authorization: [`bearer ${token}`] },
      { authorization: [`Bearer  ${token}`] },
      { authorization: [`Bearer ${token} extra`] },
      { authorization: [`Bearer ${token}`, `Bearer ${token}`] },
      { authorization: [`Bearer ${token}`], query: { access_token: token } },
      { authorization: [`Bearer ${token}`], body: { access_token: token }, formEncoded: true },
      { authorization: [`Bearer ${token}`], body: { access_token: token }, formEncoded: false },
      { authorization: [`Bearer ${token}x`] },
      { authorization: ['Bearer '] },
      { authorization: [`Basic ${token}`] },
    ];
    for (const request of requests) expect([request, outcome(request, known)]).toEqual([request, outcome(request)]);
    expect(asked).toContain(token);
    expect(outcome({ authorization: [`Bearer ${token}`] }, known)).toBe(token);
  });

  it('still refuses a token in the query or body, or a second header, beside a known one', () => {
    const known = () => true;
    expectError(() => getBearerToken({ authorization: [`Bearer ${token}`], query: { access_token: 'x' } }, REALM, known), InvalidRequestError, 400);
    expectError(() => getBearerToken({ authorization: [`Bearer ${token}`], body: { access_token: 'x' }, formEncoded: true }, REALM, known), InvalidRequestError, 400);
    expectError(() => getBearerToken({ authorization: [`Bearer ${token}`, 'Bearer y'] }, REALM, known), InvalidRequestError, 400);
  });
});
