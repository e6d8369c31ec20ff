import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { JWKS_PATH, openIdp, TOKEN_PATH } from '../../src/idp';
import { silentLogger } from '../../src/observability';

/** The demo password of every Citadel user (data/citadel-directory.json). */
export const DEMO_PASSWORD = 'V@erySecre#t123!';

/** The token endpoint's success body. */
export interface TestTokens {
  access_token: string;
  id_token: string;
  expires_in: number;
  token_type: string;
}

/** A real IdP on 127.0.0.1 and a random port, with its own temporary data directory. */
export interface TestIdp {
  /** Base URL, also the issuer (`iss`) of its tokens. */
  url: string;
  issuer: string;
  /** `aud` of access tokens. */
  audience: string;
  /** `client_id` of access tokens, `aud` of ID tokens. */
  clientId: string;
  dataDir: string;
  jwksUri: string;
  /** Signs in through the real token endpoint; throws on any non-200 answer. */
  token(email: string, password?: string): Promise<TestTokens>;
  /** Rotates the signing key (the previous one stays in the JWKS for the overlap). */
  rotateKey(): Promise<void>;
  /** Stops the server and deletes the data directory. */
  close(): Promise<void>;
}

/**
 * Starts a test IdP. It listens first (port 0) so that its real URL can become the issuer,
 * then builds the config from `env` (other variables keep their defaults; `process.env`
 * is not read) with `AUTH_URL`, a temporary `OUTPOST_DATA_DIR` and silent logs.
 */
export async function startTestIdp(env: Record<string, string> = {}): Promise<TestIdp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-idp-'));
  let handler: RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = await listen((req, res) => handler(req, res), 0, '127.0.0.1');
  try {
    const url = baseUrl(server);
    const config = loadConfig({ ...env, AUTH_URL: url, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const idp = await openIdp(config, silentLogger());
    handler = idp.app;
    return {
      url,
      issuer: config.idp.issuer,
      audience: config.idp.apiAudience,
      clientId: config.idp.clientId,
      dataDir,
      jwksUri: `${url}${JWKS_PATH}`,
      async token(email, password = DEMO_PASSWORD) {
        const res = await fetch(`${url}${TOKEN_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: email, password }),
        });
        const body = (await res.json()) as TestTokens & { error?: string };
        if (res.status !== 200) throw new Error(`token request for ${email} failed: ${res.status} ${body.error}`);
        return body;
      },
      async rotateKey() {
        await idp.keys.rotate();
      },
      async close() {
        idp.hashing.close();
        await close(server);
        await idp.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await close(server);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
