import { KeyObject } from 'node:crypto';
import { DEMO_PASSWORD } from '../helpers/idp';
import { signRs256 } from '../helpers/tokens';
import { CITADEL, startIdpFixture, type IdpFixture } from '../idp/idp-fixture';
import { startVerifierPair, type VerifierPair } from './verifier-pair';

let idp: IdpFixture;
let pair: VerifierPair;

beforeAll(async () => {
  idp = await startIdpFixture({ LOGIN_MAX_FAILURES: '1000' }, { clock: Object.assign(() => Date.now(), { advance: () => undefined }) });
  const { config } = idp;
  pair = await startVerifierPair({ issuer: config.idp.issuer, audience: config.idp.apiAudience, jwksUri: `${idp.url}/.well-known/jwks.json` });
});
afterAll(async () => {
  await pair.close();
  await idp.close();
});

async function freshToken(): Promise<string> {
  const res = await idp.post(JSON.stringify({ username: CITADEL[0].email, password: DEMO_PASSWORD }));
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('key rotation at the IdP', () => {
  it('accepts a token signed with the new key at once, even after a junk token with an unknown kid', async () => {
    const before = await freshToken();
    expect(await pair.app(before)).toBe(200);
    expect(await pair.edge(before)).toBe(200);

    // Junk that passes every unverified check but names a kid the IdP never had.
    const { config } = idp;
    const signing = await idp.idp.keys.signingKey();
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: config.idp.issuer, aud: config.idp.apiAudience, sub: CITADEL[0].id, exp: now + 300 };
    const junk = signRs256({ typ: 'at+jwt', kid: 'never-issued' }, claims, KeyObject.from(signing.privateKey));
    expect(await pair.app(junk)).toBe(401);
    expect(await pair.edge(junk)).toBe(400);

    await idp.idp.keys.rotate();
    const after = await freshToken();
    expect(after.split('.')[0]).not.toBe(before.split('.')[0]); // a new kid in the header
    expect(await pair.app(after)).toBe(200);
    expect(await pair.edge(after)).toBe(200);
  });
});
