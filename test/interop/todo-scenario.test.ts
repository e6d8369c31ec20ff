/**
 * The OpenID AuthZEN Todo scenario against a PDP started as `npm run interop -- todo` starts
 * it (`startInteropPdp`, real control plane, SQLite, relay and edge, on port 0): every case
 * of the WG's decision files, strictly (HTTP 200 and the expected decision). The counts are
 * printed, as the WG's results pages show them.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findInteropScenario, startInteropPdp, type InteropPdp } from '../../src/interop';
import { silentLogger } from '../../src/observability';
import { runDecisionFile } from './run-decision-file';

const fixtures = join(__dirname, '..', 'fixtures', 'authzen', 'todo');
const todo = findInteropScenario('todo')!;
const RICK = 'CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
const MORTY = 'CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';

let tmpRoot: string;
let pdp: InteropPdp;

beforeAll(async () => {
  tmpRoot = mkdtempSync(join(tmpdir(), 'outpost-interop-test-'));
  pdp = await startInteropPdp({ scenario: todo, port: 0, logger: silentLogger(), tmpRoot });
}, 30_000);

afterAll(async () => {
  await pdp?.close();
  rmSync(tmpRoot, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${pdp.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('npm run interop -- todo: the WG decision files', () => {
  it.each([
    ['1.0-02', 'decisions-authorization-api-1_0-02.json', 43],
    ['1.0-01', 'decisions-authorization-api-1_0-01.json', 40],
  ])('todo %s: every case passes', async (version, file, cases) => {
    const result = await runDecisionFile(join(fixtures, file), pdp.url);
    console.log(`todo ${version}: ${result.passed}/${result.total}`);
    expect(result.failures).toEqual([]);
    expect({ passed: result.passed, total: result.total }).toEqual({ passed: cases, total: cases });
  });

  it('serves on loopback under the URL it reports, with the AuthZEN metadata document', async () => {
    expect(pdp.url).toBe(`http://localhost:${pdp.port}`);
    const res = await fetch(`${pdp.url}/.well-known/authzen-configuration`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      policy_decision_point: pdp.url,
      access_evaluation_endpoint: `${pdp.url}/access/v1/evaluation`,
      access_evaluations_endpoint: `${pdp.url}/access/v1/evaluations`,
    });
  });
});

describe('a resource property of the wrong JSON type (ownerID: 5) is the caller’s mistake: 400 naming it, never a 5xx', () => {
  const refusal = { code: 'invalid_property', message: 'resource property "ownerID" must be a string (an entity id), not 5' };

  it('on the AuthZEN evaluation API', async () => {
    const res = await post('/access/v1/evaluation', {
      subject: { type: 'user', id: MORTY },
      action: { name: 'can_update_todo' },
      resource: { type: 'todo', id: 't-1', properties: { ownerID: 5 } },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(refusal);
  });

  it('on the Topaz-shaped API', async () => {
    const res = await post('/api/v2/authz/is', {
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: MORTY },
      policy_context: { path: 'todo.can_update_todo', decisions: ['allowed'] },
      resource_context: { type: 'todo', id: 't-1', ownerID: 5 },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(refusal);
  });

  it('and the same request with the owner as a string is decided', async () => {
    const res = await post('/access/v1/evaluation', {
      subject: { type: 'user', id: MORTY },
      action: { name: 'can_update_todo' },
      resource: { type: 'todo', id: 't-1', properties: { ownerID: 'morty@the-citadel.com' } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ decision: true });
  });
});

describe('entity types as Cedar writes them', () => {
  it.each([
    ['todo', true],
    ['Outpost::todo', true],
    ['Todo', false],
    ['Other::todo', false],
  ])('resource type %s → decision %s (200 either way)', async (type, decision) => {
    const res = await post('/access/v1/evaluation', { subject: { type: 'user', id: RICK }, action: { name: 'can_create_todo' }, resource: { type, id: 'todo-1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ decision });
  });
});

describe('startInteropPdp', () => {
  it('leaves nothing behind: close stops the server and removes its data folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outpost-interop-close-'));
    try {
      const second = await startInteropPdp({ scenario: todo, port: 0, logger: silentLogger(), tmpRoot: root });
      expect(existsSync(join(second.dataDir, 'control-plane.sqlite'))).toBe(true);
      await second.close();
      expect(readdirSync(root)).toEqual([]);
      await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);

  it('refuses a scenario that is not available yet, and makes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outpost-interop-refuse-'));
    try {
      const unavailable = { ...todo, name: 'later', unavailable: 'not built yet' };
      await expect(startInteropPdp({ scenario: unavailable, port: 0, logger: silentLogger(), tmpRoot: root })).rejects.toThrow(
        'the later scenario is not available: not built yet',
      );
      expect(readdirSync(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
