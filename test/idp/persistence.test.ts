import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { idpFiles, TOKEN_PATH } from '../../src/idp';
import { CITADEL, startIdpFixture, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, exchangeCode, pkcePair, postForm, signInThroughPage, TODO_URL } from './oauth-fixture';

const PASSWORD = 'V@erySecre#t123!';

async function signIn(f: IdpFixture, email: string): Promise<{ access_token: string }> {
  const res = await f.post(JSON.stringify({ username: email, password: PASSWORD }));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string };
}

async function publishedKids(f: IdpFixture): Promise<string[]> {
  const body = (await (await fetch(`${f.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  return body.keys.map((k) => k.kid);
}

describe('persistence across restarts', () => {
  it('reuses the signing key and the password hashes, stored owner-only and without the password', async () => {
    const first = await startIdpFixture();
    const tokens = await signIn(first, CITADEL[2].email);
    const kid = decodeProtectedHeader(tokens.access_token).kid;
    const { keysFile, usersFile } = idpFiles(first.dataDir);
    const usersBefore = readFileSync(usersFile, 'utf8');
    await first.close(true);

    const second = await startIdpFixture({}, { dataDir: first.dataDir, clock: first.clock });
    try {
      expect(await publishedKids(second)).toEqual([kid]);
      expect(readFileSync(usersFile, 'utf8')).toBe(usersBefore);
      // A token from before the restart still verifies against the restarted IdP's JWKS.
      const verified = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${second.url}/.well-known/jwks.json`)), {
        audience: second.config.idp.apiAudience,
        typ: 'at+jwt',
      });
      expect(verified.payload.sub).toBe(CITADEL[2].id);
      const res = await fetch(`${second.url}${TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: CITADEL[2].email, password: PASSWORD }),
      });
      expect(res.status).toBe(200);
      for (const file of [keysFile, usersFile]) expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(keysFile)).mode & 0o777).toBe(0o700);
    } finally {
      await second.close();
    }
    expect(usersBefore).not.toContain(PASSWORD);
    const users = JSON.parse(usersBefore) as { users: { id: string; password_hash: string }[] };
    expect(users.users.map((u) => u.id)).toEqual(CITADEL.map((u) => u.id));
    const hashes = users.users.map((u) => u.password_hash);
    for (const h of hashes) expect(h).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(new Set(hashes).size).toBe(hashes.length); // a fresh salt per user
  });

  it('keeps the machine client\'s secret and the provider\'s grants: a refresh token from before the restart still works', async () => {
    const env = { TODO_URL };
    const first = await startIdpFixture(env);
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(first.url, authorizeUrl(first.url, challenge), CITADEL[4].email);
    const code = await exchangeCode(first.url, callback, verifier);
    expect(code.status).toBe(200);
    const { refresh_token } = (await code.json()) as { refresh_token: string };
    const machine = first.idp.machineClient;
    await first.close(true);

    const second = await startIdpFixture(env, { dataDir: first.dataDir, clock: first.clock });
    try {
      expect(second.idp.machineClient).toEqual(machine);
      const refreshed = await postForm(second.url, TOKEN_PATH, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token });
      expect(refreshed.status).toBe(200);
      expect(await refreshed.json()).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
      const credentials = await postForm(second.url, TOKEN_PATH, { grant_type: 'client_credentials', client_id: machine.clientId, client_secret: machine.clientSecret });
      expect(credentials.status).toBe(200);
      // Everything the IdP keeps (keys, hashes, the machine secret, the provider's storage) is owner-only.
      const dir = dirname(idpFiles(second.dataDir).keysFile);
      const files = readdirSync(dir).filter((name) => !name.endsWith('.lock'));
      expect(files).toEqual(expect.arrayContaining(['keys.json', 'users.json', 'machine-client.json', 'oidc.sqlite']));
      for (const name of files) expect([name, statSync(join(dir, name)).mode & 0o777]).toEqual([name, 0o600]);
    } finally {
      await second.close();
    }
  });
});
