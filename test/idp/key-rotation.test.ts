import { readFileSync, writeFileSync } from 'node:fs';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { idpFiles, openIdpKeyStore } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { CITADEL, startIdpFixture, type IdpFixture } from './idp-fixture';

const PASSWORD = 'V@erySecre#t123!';

/** Signs in through the real endpoint (expects 200). */
async function signIn(f: IdpFixture, email = CITADEL[0].email): Promise<{ access_token: string; id_token: string }> {
  const res = await f.post(JSON.stringify({ username: email, password: PASSWORD }));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string };
}

/** A client-credentials token from the provider itself (its own signing path, not the seed's). */
async function machineToken(f: IdpFixture): Promise<string> {
  const { clientId, clientSecret } = f.idp.machineClient;
  const res = await fetch(`${f.url}/api/v1/idp/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function publishedKids(f: IdpFixture): Promise<string[]> {
  const res = await fetch(`${f.url}/.well-known/jwks.json`);
  const body = (await res.json()) as { keys: { kid: string }[] };
  // Retired keys too: public members only (the provider holds them as private JWKs).
  for (const key of body.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  return body.keys.map((k) => k.kid);
}

/** Verifies against a freshly fetched JWKS (no cache carried over from earlier checks). */
function verify(f: IdpFixture, token: string, at: number) {
  return jwtVerify(token, createRemoteJWKSet(new URL(`${f.url}/.well-known/jwks.json`)), {
    issuer: f.config.idp.issuer,
    audience: f.config.idp.apiAudience,
    typ: 'at+jwt',
    currentDate: new Date(at),
  });
}

describe('signing key rotation', () => {
  let f: IdpFixture;
  beforeEach(async () => {
    f = await startIdpFixture({ KEY_ROTATION_OVERLAP: '600' });
  });
  afterEach(() => f.close());

  it('keeps a rotated-out key published for the overlap window, then drops it', async () => {
    const before = await signIn(f);
    const oldKid = decodeProtectedHeader(before.access_token).kid as string;
    const newKid = await f.idp.keys.rotate();
    expect(newKid).not.toBe(oldKid);

    const after = await signIn(f);
    expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);
    expect(decodeProtectedHeader(after.id_token).kid).toBe(newKid);
    const machine = await machineToken(f);
    expect(decodeProtectedHeader(machine).kid).toBe(newKid);
    await expect(verify(f, machine, f.clock())).resolves.toBeDefined();
    // The active key first (the provider signs with the first key of its JWKS), then the retired one.
    expect(await publishedKids(f)).toEqual([newKid, oldKid]);
    await expect(verify(f, before.access_token, f.clock())).resolves.toBeDefined();

    f.clock.advance(599);
    expect(await publishedKids(f)).toEqual([newKid, oldKid]);
    await expect(verify(f, before.access_token, f.clock())).resolves.toBeDefined();

    f.clock.advance(1);
    expect(await publishedKids(f)).toEqual([newKid]);
    // Still within the token's own lifetime: only the key is gone.
    await expect(verify(f, before.access_token, f.clock())).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    await expect(verify(f, after.access_token, f.clock())).resolves.toBeDefined();
  });

  it('prunes keys past their overlap from keys.json on the next rotation', async () => {
    const first = await f.idp.keys.rotate();
    f.clock.advance(601);
    const second = await f.idp.keys.rotate();
    const file = JSON.parse(readFileSync(idpFiles(f.dataDir).keysFile, 'utf8')) as { keys: { kid: string; retired_at?: number }[] };
    expect(file.keys.map((k) => k.kid)).toEqual([first, second]);
    expect(file.keys[0].retired_at).toBe(Math.floor(f.clock() / 1000));
    expect(file.keys[1].retired_at).toBeUndefined();
  });

  it('picks up a rotation made by another process (npm run rotate-key)', async () => {
    const oldKid = (await publishedKids(f))[0];
    // A second store on the same file, as the rotate-key script opens it.
    const external = await openIdpKeyStore(f.config, silentLogger(), f.clock);
    const newKid = await external.rotate();

    expect(await publishedKids(f)).toEqual([newKid, oldKid]);
    const tokens = await signIn(f);
    expect(decodeProtectedHeader(tokens.access_token).kid).toBe(newKid);
    await expect(verify(f, tokens.access_token, f.clock())).resolves.toBeDefined();
    expect(decodeProtectedHeader(await machineToken(f)).kid).toBe(newKid);
  });

  it('keeps its last good keys when keys.json is replaced by something invalid', async () => {
    const kids = await publishedKids(f);
    writeFileSync(idpFiles(f.dataDir).keysFile, '{"version":1,"keys":[]}');
    expect(await publishedKids(f)).toEqual(kids);
    const res = await f.post(JSON.stringify({ username: CITADEL[1].email, password: PASSWORD }));
    expect(res.status).toBe(200);
  });
});
