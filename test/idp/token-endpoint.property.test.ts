import fc from 'fast-check';
import { CITADEL, startIdpFixture, type IdpFixture } from './idp-fixture';

/** Bodies from plain noise to nearly valid credentials, so every branch gets hit. */
const body = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 3 }),
  fc.record(
    {
      username: fc.oneof(fc.constantFrom(...CITADEL.map((u) => u.email)), fc.string({ maxLength: 300 }), fc.jsonValue()),
      password: fc.oneof(fc.constant('V@erySecre#t123!'), fc.string({ maxLength: 40 }), fc.jsonValue()),
      grant_type: fc.oneof(fc.constant('password'), fc.string({ maxLength: 10 })),
    },
    { requiredKeys: [] },
  ).map((o) => JSON.stringify(o)),
  fc.string({ minLength: 4000, maxLength: 5000 }).map((s) => JSON.stringify({ username: s, password: s })),
);
const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z+.-]{1,12}$/),
);

describe('token endpoint under random input (fast-check)', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    // Throttling raised out of the way: this test is about parsing, not rate limits.
    f = await startIdpFixture({ LOGIN_MAX_FAILURES: '100000' });
  });
  afterAll(() => f.close());

  it('never answers 5xx and always answers JSON (an OAuth error unless the credentials are right)', async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType, async (raw, type) => {
        const headers: Record<string, string> = type ? { 'content-type': type } : {};
        const res = await fetch(`${f.url}/api/v1/idp/token`, { method: 'POST', headers, body: raw });
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const parsed = (await res.json()) as Record<string, unknown>;
        if (res.status === 200) {
          expect(parsed.token_type).toBe('bearer');
        } else {
          expect([400, 401, 415]).toContain(res.status);
          expect(typeof parsed.error).toBe('string');
          expect(typeof parsed.error_description).toBe('string');
        }
      }),
      { numRuns: 200 },
    );
  });
});
