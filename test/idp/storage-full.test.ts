// The provider's storage failing: a full disk and a busy database get the answers Outpost gives
// everywhere (docs/reference/api.md), never the provider's 500 "oops! something went wrong" page
// with a stack in the log. At /authorize the error goes back to the client as RFC 6749 §4.1.2.1
// says (`server_error`, `temporarily_unavailable`); the token endpoint answers 507 or 503 JSON.
// The failures are the engine's own errors (a real better-sqlite3 SQLITE_FULL), raised where the
// IdP's storage reads and writes.
import type { Adapter } from 'oidc-provider';
import { sqliteFull } from '../helpers/sqlite-full';
import { serveIdpVariant, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, pkcePair, REDIRECT_URI, startOAuthIdp } from './oauth-fixture';


/** better-sqlite3's error for a database locked past its busy time-out. */
const sqliteBusy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** The fixture's storage, whose every read and write fails with `err`. */
function failingStorage(adapterFor: (model: string) => Adapter, err: Error): (model: string) => Adapter {
  return (model) => ({ ...adapterFor(model), upsert: () => Promise.reject(err), find: () => Promise.reject(err) });
}

describe("the IdP answers its storage's failures", () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp();
  });
  afterAll(() => f.close());

  const cases = [
    ['a full disk', sqliteFull, 507, 'server_error', 'storage is full'],
    ['a busy database', sqliteBusy, 503, 'temporarily_unavailable', 'storage is busy or unavailable; retry shortly'],
  ] as const;

  it.each(cases)('%s: GET /authorize sends the error back to the client (RFC 6749 §4.1.2.1), not a 500 page', async (_name, fail, _status, error, description) => {
    const variant = await serveIdpVariant(f, { adapter: failingStorage(f.idp.adapter, fail()) });
    try {
      const res = await fetch(authorizeUrl(variant.url, pkcePair().challenge), { redirect: 'manual', headers: { accept: 'text/html' } });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(Object.fromEntries(back.searchParams)).toEqual({ error, error_description: description, state: 'st-1', iss: f.config.idp.issuer });
    } finally {
      await variant.close();
    }
  });

  it.each(cases)('%s: the token endpoint answers its status (507, 503) and error as JSON', async (_name, fail, status, error, description) => {
    const variant = await serveIdpVariant(f, { adapter: failingStorage(f.idp.adapter, fail()) });
    try {
      const res = await fetch(`${variant.url}/api/v1/idp/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r'.repeat(43), client_id: CLIENT_ID }).toString(),
      });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error, error_description: description });
    } finally {
      await variant.close();
    }
  });
});
