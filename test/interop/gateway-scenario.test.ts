/**
 * The OpenID AuthZEN API-gateway scenario against a PDP started as `npm run interop --
 * gateway` starts it (`startInteropPdp`, real control plane, SQLite, relay and edge, on port
 * 0): every case of the WG's decision file, strictly (HTTP 200 and the expected decision),
 * the count printed as the WG's results pages show it. Then what the `identity` subject
 * type means here: one of a user's `identities`, nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findInteropScenario, startInteropPdp, type InteropPdp } from '../../src/interop';
import { silentLogger } from '../../src/observability';
import { runDecisionFile } from './run-decision-file';

const fixtures = join(__dirname, '..', 'fixtures', 'authzen', 'gateway');
const gateway = findInteropScenario('gateway')!;
/** Morty's Dex id (an identity in data/citadel-directory.json), his directory id and e-mail. */
const MORTY = { dex: 'CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02', email: 'morty@the-citadel.com' };

let tmpRoot: string;
let pdp: InteropPdp;

beforeAll(async () => {
  tmpRoot = mkdtempSync(join(tmpdir(), 'outpost-interop-gateway-'));
  pdp = await startInteropPdp({ scenario: gateway, port: 0, logger: silentLogger(), tmpRoot });
}, 30_000);

afterAll(async () => {
  await pdp?.close();
  rmSync(tmpRoot, { recursive: true, force: true });
});

async function evaluate(subject: { type: string; id: string }, method: string, route: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${pdp.url}/access/v1/evaluation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject, action: { name: method }, resource: { type: 'route', id: route }, context: {} }),
  });
  return { status: res.status, body: await res.json() };
}

describe('npm run interop -- gateway: the WG decision file', () => {
  it('every case passes (25/25)', async () => {
    const result = await runDecisionFile(join(fixtures, 'decisions.json'), pdp.url);
    console.log(`api gateway: ${result.passed}/${result.total}`);
    expect(result.failures).toEqual([]);
    expect({ passed: result.passed, total: result.total }).toEqual({ passed: 25, total: 25 });
  });
});

describe('a subject of type identity is one of a directory user’s identities', () => {
  it('Morty by his Dex id is an editor: he may POST /todos', async () => {
    expect(await evaluate({ type: 'identity', id: MORTY.dex }, 'POST', '/todos')).toEqual({ status: 200, body: { decision: true } });
  });

  it.each([
    ['his directory id', MORTY.id],
    ['his e-mail address', MORTY.email],
    ['an identity no user holds', 'CiRub2JvZHkSBWxvY2Fs'],
  ])('%s is no identity: denied (200), though GET /todos is open to every user', async (_what, id) => {
    expect(await evaluate({ type: 'identity', id }, 'GET', '/todos')).toEqual({ status: 200, body: { decision: false } });
  });

  it('a subject of type user still takes the id, the e-mail or an identity', async () => {
    for (const id of [MORTY.id, MORTY.email, MORTY.dex]) {
      expect(await evaluate({ type: 'user', id }, 'POST', '/todos')).toEqual({ status: 200, body: { decision: true } });
    }
  });

  it('any other subject type is still 400 unknown_subject_type', async () => {
    expect(await evaluate({ type: 'service', id: MORTY.dex }, 'GET', '/todos')).toEqual({
      status: 400,
      body: { code: 'unknown_subject_type', message: 'unknown subject type "service"; this edge knows "user" and "identity"' },
    });
  });

  it('in a batch too: an identity subject as the default, each route an item', async () => {
    const res = await fetch(`${pdp.url}/access/v1/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: { type: 'identity', id: MORTY.dex },
        evaluations: [
          { action: { name: 'PUT' }, resource: { type: 'route', id: '/todos/{todoId}' } },
          { action: { name: 'GET' }, resource: { type: 'route', id: '/todos/{todoId}' } },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
  });
});
