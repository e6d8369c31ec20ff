// A code or a refresh token is redeemed once, even by requests that arrive together: the
// provider checks `consumed` and then consumes, and two requests can both pass the check, so
// the storage's consume is the one place that can tell them apart (oidc-storage.ts).
import { CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, exchangeCode, pkcePair, postForm, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';
const AT_ONCE = 8;

describe('redeemed once, however many requests arrive together', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp();
  });
  afterAll(() => f.close());

  it('exchanges a code for one of several simultaneous requests; the others get invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge), CITADEL[0].email);
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => exchangeCode(f.url, callback, verifier)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(AT_ONCE - 1);
    for (const r of answers.filter((a) => a.status === 400)) expect(((await r.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('rotates a refresh token for one of several simultaneous requests: one successor, never two', async () => {
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge), CITADEL[1].email);
    const first = (await (await exchangeCode(f.url, callback, verifier)).json()) as { refresh_token: string };
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, () => postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: first.refresh_token })),
    );
    const winners = answers.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) {
      expect({ status: r.status, error: ((await r.json()) as { error: string }).error }).toEqual({ status: 400, error: 'invalid_grant' });
    }
    // A reuse revokes the family, as a late replay does: the one successor does not work either.
    const successor = ((await winners[0]!.json()) as { refresh_token: string }).refresh_token;
    const again = await postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: successor });
    expect(again.status).toBe(400);
  });
});
