import { TOKEN_PATH, type UserStore } from '../../src/idp';
import { CITADEL, serveIdpVariant, startIdpFixture, type IdpFixture } from './idp-fixture';

const PASSWORD = 'V@erySecre#t123!';
const json = (body: unknown) => JSON.stringify(body);

/** The real user store, except that a username it does not know is refused without hashing. */
function answerUnknownUsersAtOnce(users: UserStore): UserStore {
  const known = new Set(users.list().map((u) => u.email.toLowerCase()));
  return {
    list: () => users.list(),
    authenticate: async (username, password) => (known.has(username.trim().toLowerCase()) ? users.authenticate(username, password) : undefined),
  };
}

async function expectError(res: Response, status: number, error: string, description: string): Promise<void> {
  expect({ status: res.status, body: await res.json() }).toEqual({
    status,
    body: { error, error_description: description },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('token endpoint errors (RFC 6749 §5.2)', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startIdpFixture({ LOGIN_MAX_FAILURES: '1000' });
  });
  afterAll(() => f.close());

  it.each([
    ['not JSON', '{"username":', 'the request body is not valid JSON'],
    ['a JSON array', '[1,2]', 'the request body must be a JSON object'],
    ['an empty body', '', 'missing username'],
    ['a JSON string', '"rick"', 'the request body is not valid JSON'],
    ['no username', json({ password: PASSWORD }), 'missing username'],
    ['no password', json({ username: CITADEL[0].email }), 'missing password'],
    ['a numeric username', json({ username: 42, password: PASSWORD }), 'username must be a string'],
    ['a null password', json({ username: CITADEL[0].email, password: null }), 'password must be a string'],
    ['an empty username', json({ username: '', password: PASSWORD }), 'username must be 1 to 256 characters'],
    ['a long password', json({ username: CITADEL[0].email, password: 'x'.repeat(1025) }), 'password must be 1 to 1024 characters'],
  ])('400 invalid_request for %s', async (_case, body, description) => {
    const res = await f.post(body);
    await expectError(res, 400, 'invalid_request', description);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('400 unsupported_grant_type for another grant', async () => {
    const res = await f.post(json({ grant_type: 'client_credentials', username: CITADEL[0].email, password: PASSWORD }));
    await expectError(res, 400, 'unsupported_grant_type', 'only the password grant is supported');
  });

  it('accepts an explicit password grant and ignores unknown members', async () => {
    const res = await f.post(json({ grant_type: 'password', username: CITADEL[0].email, password: PASSWORD, extra: [1] }));
    expect(res.status).toBe(200);
  });

  // application/x-www-form-urlencoded is the RFC 6749 form (test/idp/form-token-endpoint.test.ts).
  it.each(['text/plain', 'application/jsonx'])('415 for content type %s', async (type) => {
    const res = await f.post(json({ username: CITADEL[0].email, password: PASSWORD }), type);
    await expectError(res, 415, 'invalid_request', 'the request body must be application/json');
  });

  it('415 for a charset body-parser cannot decode', async () => {
    const res = await f.post(json({ username: 'a', password: 'b' }), 'application/json; charset=koi8-r');
    await expectError(res, 415, 'invalid_request', 'unsupported body encoding');
  });

  it('400 invalid_request for a body over 4 kB', async () => {
    const res = await f.post(json({ username: CITADEL[0].email, password: 'x'.repeat(5000) }));
    await expectError(res, 400, 'invalid_request', 'the request body is too large');
  });

  it('401 invalid_grant with one message for a wrong password and an unknown user', async () => {
    const wrong = await f.post(json({ username: CITADEL[0].email, password: 'not-the-password' }));
    await expectError(wrong, 401, 'invalid_grant', 'the username or password is incorrect');
    const unknown = await f.post(json({ username: 'birdperson@the-citadel.com', password: PASSWORD }));
    await expectError(unknown, 401, 'invalid_grant', 'the username or password is incorrect');
    expect(wrong.headers.get('cache-control')).toBe('no-store');
  });

  it('405 with Allow for other methods on the token path', async () => {
    const res = await fetch(`${f.url}/api/v1/idp/token`);
    await expectError(res, 405, 'invalid_request', 'use POST for the token endpoint');
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('404 JSON for unknown paths', async () => {
    const res = await fetch(`${f.url}/api/v1/idp/nope`, { method: 'POST' });
    await expectError(res, 404, 'not_found', 'no route for POST /api/v1/idp/nope');
  });

  it('GET /healthz answers ok', async () => {
    const res = await fetch(`${f.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('sign-in throttling', () => {
  let f: IdpFixture;
  const wrong = (username: string) => f.post(json({ username, password: 'wrong-password' }));
  const right = (username: string) => f.post(json({ username, password: PASSWORD }));
  beforeEach(async () => {
    f = await startIdpFixture({ LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '60' });
  });
  afterEach(() => f.close());

  it('429 with Retry-After after repeated failures for one username, until the window ends', async () => {
    for (let i = 0; i < 3; i += 1) expect((await wrong(CITADEL[3].email)).status).toBe(401);
    f.clock.advance(20);
    const blocked = await right(CITADEL[3].email.toUpperCase());
    await expectError(blocked, 429, 'too_many_requests', 'too many failed sign-in attempts; try again in 40 seconds');
    expect(blocked.headers.get('retry-after')).toBe('40');
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    f.clock.advance(40);
    expect((await right(CITADEL[3].email)).status).toBe(200);
  });

  it('one user\'s wrong passwords lock that user at that address, not everyone behind the address (loopback)', async () => {
    for (let i = 0; i < 3; i += 1) expect((await wrong(CITADEL[1].email)).status).toBe(401);
    expect((await right(CITADEL[1].email)).status).toBe(429);
    // Every script and page on this machine shares 127.0.0.1: Rick must still get in.
    expect((await right(CITADEL[0].email)).status).toBe(200);
  });

  it('429 for one client address trying many usernames, at 20 × the per-user limit', async () => {
    // 60 failures (3 × 20) from one address. Unknown users are answered at once here, not after
    // the dummy scrypt round, so no machine is too slow or too busy for this test.
    const quick = await serveIdpVariant(f, { users: answerUnknownUsersAtOnce(f.idp.users) });
    const post = (username: string, password: string) =>
      fetch(`${quick.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ username, password }) });
    try {
      for (let i = 0; i < 60; i += 1) expect((await post(`u${i}@x.test`, 'wrong-password')).status).toBe(401);
      const blocked = await post(CITADEL[4].email, PASSWORD);
      await expectError(blocked, 429, 'too_many_requests', 'too many failed sign-in attempts; try again in 60 seconds');
      expect(blocked.headers.get('retry-after')).toBe('60');
    } finally {
      await quick.close();
    }
  });

  it('caps a burst of parallel wrong passwords at the limit (checks under way hold the failures left)', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => wrong(CITADEL[0].email)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });

  it('a successful sign-in clears the username count', async () => {
    for (let i = 0; i < 2; i += 1) expect((await wrong(CITADEL[1].email)).status).toBe(401);
    expect((await right(CITADEL[1].email)).status).toBe(200);
    f.clock.advance(61); // let the address window lapse; the username one was reset already
    for (let i = 0; i < 2; i += 1) expect((await wrong(CITADEL[1].email)).status).toBe(401);
    expect((await right(CITADEL[1].email)).status).toBe(200);
  });
});
