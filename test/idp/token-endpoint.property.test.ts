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
/** Stands for the machine client's real secret, known only once the IdP runs. */
const MACHINE_SECRET = '<machine-secret>';

/**
 * Form bodies as the provider's token endpoint reads them (RFC 6749 §3.2): mostly a real client
 * and grant, so the grants themselves are reached, then real parameter names mixed with noise,
 * repeated parameters included.
 */
const formBody = fc
  .tuple(
    fc.constantFrom<[string, string][]>(
      [['client_id', 'outpost-demo-client']],
      [['client_id', 'outpost-todo']],
      [['client_id', 'outpost-machine'], ['client_secret', MACHINE_SECRET]],
      [],
    ),
    fc.option(fc.constantFrom('password', 'client_credentials', 'authorization_code', 'refresh_token', 'implicit'), { nil: undefined }),
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('username', 'password', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope', 'resource', 'client_id', 'grant_type'),
          fc.string({ maxLength: 10 }),
        ),
        fc.oneof(
          fc.constantFrom(...CITADEL.map((u) => u.email), 'V@erySecre#t123!', 'openid', 'openid api', 'admin', 'urn:outpost:sample-api', 'http://localhost:3999/'),
          fc.string({ maxLength: 60 }),
        ),
      ),
      { maxLength: 6 },
    ),
  )
  .map(([client, grant, rest]): [string, string][] => [...client, ...(grant === undefined ? [] : [['grant_type', grant] as [string, string]]), ...rest]);

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

  it('answers form-encoded bodies (the provider\'s grants) the same way: never 5xx, always JSON', async () => {
    await fc.assert(
      fc.asyncProperty(formBody, async (pairs) => {
        const raw = new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v === MACHINE_SECRET ? f.idp.machineClient.clientSecret : v])).toString();
        const res = await f.post(raw, 'application/x-www-form-urlencoded');
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const parsed = (await res.json()) as Record<string, unknown>;
        if (res.status === 200) {
          expect(typeof parsed.access_token).toBe('string');
        } else {
          expect([400, 401]).toContain(res.status);
          expect(typeof parsed.error).toBe('string');
          expect(typeof parsed.error_description).toBe('string');
        }
      }),
      { numRuns: 300 },
    );
  });
});
