import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import { readPolicyFolder } from '../../src/policy';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { root, startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

// The AuthZEN search endpoints on a real sidecar (port 0) holding the relation-based
// policy (policies/rebac) and the Citadel directory: owners do everything, writers
// GET/PUT/POST, readers GET.

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let server: Server;
let url: string;
const id: Record<string, string> = {};

beforeAll(async () => {
  cp = await startFakeControlPlane();
  cp.image = readPolicyFolder(join(root, 'policies', 'rebac'));
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir, { publicUrl: 'http://edge.example:8383' }));
  server = await listen(edge.app, 0, '127.0.0.1');
  url = baseUrl(server);
  for (const name of ['rick', 'morty', 'summer', 'beth', 'jerry']) id[name] = userId(cp.directory, name);
});

afterAll(async () => {
  await close(server);
  await edge.close();
  await cp.close();
  removeDir(dir);
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const subjects = (body: unknown) => post('/access/v1/search/subject', body);
const resources = (body: unknown) => post('/access/v1/search/resource', body);
const actions = (body: unknown) => post('/access/v1/search/action', body);
const user = (name?: string) => (name === undefined ? { type: 'user' } : { type: 'user', id: id[name] ?? name });
const resource = (rid?: string) => (rid === undefined ? { type: 'Resource' } : { type: 'Resource', id: rid });
const sortedIds = (results: { id: string }[]) => results.map((r) => r.id).sort();

describe('GET /.well-known/authzen-configuration', () => {
  it('names the three search endpoints beside the evaluation endpoints', async () => {
    const res = await fetch(`${url}/.well-known/authzen-configuration`);
    expect(await res.json()).toEqual({
      policy_decision_point: 'http://edge.example:8383',
      access_evaluation_endpoint: 'http://edge.example:8383/access/v1/evaluation',
      access_evaluations_endpoint: 'http://edge.example:8383/access/v1/evaluations',
      search_subject_endpoint: 'http://edge.example:8383/access/v1/search/subject',
      search_resource_endpoint: 'http://edge.example:8383/access/v1/search/resource',
      search_action_endpoint: 'http://edge.example:8383/access/v1/search/action',
    });
  });
});

describe('POST /access/v1/search/subject', () => {
  it('returns the users evaluation permits, as {type, id}, and no page object when none was asked for', async () => {
    const res = await subjects({ subject: user(), action: { name: 'GET' }, resource: resource('mega-seed') });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['results']);
    expect(sortedIds(res.body.results)).toEqual([id.rick, id.morty, id.summer, id.beth].sort());
    expect(res.body.results.every((r: { type: string }) => r.type === 'user')).toBe(true);
    const del = await subjects({ subject: user(), action: { name: 'DELETE' }, resource: resource('mega-seed') });
    expect(del.body).toEqual({ results: [{ type: 'user', id: id.rick }] });
  });

  it('ignores a subject id (AuthZEN §8.4) and carries the state it searched', async () => {
    const res = await subjects({ subject: user('jerry'), action: { name: 'DELETE' }, resource: resource('mega-seed') });
    expect(res.body).toEqual({ results: [{ type: 'user', id: id.rick }] });
    expect(res.headers.get('outpost-policy-digest')).toBe(edge.status().policy_digest);
    expect(res.headers.get('outpost-directory-revision')).toBe(String(edge.status().directory_revision));
  });

  it('answers an empty list for a type, resource or action the policy does not know', async () => {
    for (const body of [
      { subject: { type: 'spaceship' }, action: { name: 'GET' }, resource: resource('mega-seed') },
      { subject: user(), action: { name: 'GET' }, resource: { type: 'Planet', id: 'earth' } },
      { subject: user(), action: { name: 'FLY' }, resource: resource('mega-seed') },
      { subject: user(), action: { name: 'GET' }, resource: resource('no-such-thing') },
    ]) {
      const res = await subjects(body);
      expect([res.status, res.body]).toEqual([200, { results: [] }]);
    }
  });
});

describe('POST /access/v1/search/resource', () => {
  it("returns the resources evaluation permits: Morty's GETs and his one DELETE", async () => {
    const get = await resources({ subject: user('morty'), action: { name: 'GET' }, resource: resource() });
    expect(sortedIds(get.body.results)).toEqual(['mega-seed', 'portal-gun', 'space-cruiser', 'time-crystal']);
    const del = await resources({ subject: user('morty'), action: { name: 'DELETE' }, resource: resource() });
    expect(del.body).toEqual({ results: [{ type: 'Resource', id: 'time-crystal' }] });
  });

  it('ignores a resource id (AuthZEN §8.5) and resolves a subject named by e-mail', async () => {
    const res = await resources({ subject: { type: 'user', id: 'morty@the-citadel.com' }, action: { name: 'DELETE' }, resource: resource('mega-seed') });
    expect(res.body).toEqual({ results: [{ type: 'Resource', id: 'time-crystal' }] });
  });

  it('answers an empty list for an unknown subject', async () => {
    const res = await resources({ subject: user('nobody'), action: { name: 'GET' }, resource: resource() });
    expect([res.status, res.body]).toEqual([200, { results: [] }]);
  });
});

describe('POST /access/v1/search/action', () => {
  it("returns the schema's actions evaluation permits, as {name}", async () => {
    const writer = await actions({ subject: user('morty'), resource: resource('mega-seed') });
    expect(writer.body.results.map((a: { name: string }) => a.name).sort()).toEqual(['GET', 'POST', 'PUT']);
    const owner = await actions({ subject: user('rick'), resource: resource('mega-seed') });
    expect(owner.body.results.map((a: { name: string }) => a.name).sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
    const stranger = await actions({ subject: user('jerry'), resource: resource('mega-seed') });
    expect(stranger.body).toEqual({ results: [] });
  });
});

describe('paging (AuthZEN §8.2)', () => {
  const ask = { subject: user(), action: { name: 'GET' }, resource: resource('mega-seed') };

  it('walks the whole answer a page at a time, the last next_token empty', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    const pages: unknown[] = [];
    do {
      const res = await subjects({ ...ask, page: { limit: 1, ...(token ? { token } : {}) } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['page', 'results']);
      pages.push(res.body.page);
      for (const r of res.body.results) seen.push(r.id);
      token = res.body.page.next_token;
    } while (token);
    expect(seen.sort()).toEqual([id.rick, id.morty, id.summer, id.beth].sort());
    expect(pages.length).toBeGreaterThanOrEqual(4);
  });

  it('says count and total when one page holds the whole answer', async () => {
    const res = await subjects({ ...ask, page: { limit: 10 } });
    expect(res.body.page).toEqual({ next_token: '', count: 4, total: 4 });
  });

  it('answers no results for a limit of 0, and lowers a limit over 1,000 to 1,000', async () => {
    expect((await subjects({ ...ask, page: { limit: 0 } })).body).toEqual({ page: { next_token: '', count: 0 }, results: [] });
    expect((await subjects({ ...ask, page: { limit: 5_000 } })).body.page).toEqual({ next_token: '', count: 4, total: 4 });
  });

  it('refuses a token used with a changed request, or one it never issued, as 400 invalid_page_token', async () => {
    const first = await subjects({ ...ask, page: { limit: 1 } });
    const token = first.body.page.next_token as string;
    expect(token).not.toBe('');
    const changed = await subjects({ ...ask, action: { name: 'PUT' }, page: { limit: 1, token } });
    expect([changed.status, changed.body.code]).toEqual([400, 'invalid_page_token']);
    const otherLimit = await subjects({ ...ask, page: { limit: 2, token } });
    expect([otherLimit.status, otherLimit.body.code]).toEqual([400, 'invalid_page_token']);
    const forged = await subjects({ ...ask, page: { limit: 1, token: 'not-a-token' } });
    expect([forged.status, forged.body.code]).toEqual([400, 'invalid_page_token']);
  });
});

describe('refusals', () => {
  it.each([
    ['/access/v1/search/subject', { subject: user(), resource: resource('mega-seed') }, /needs an action/],
    ['/access/v1/search/subject', { subject: user(), action: { name: 'GET' }, resource: resource() }, /needs resource\.id/],
    ['/access/v1/search/resource', { action: { name: 'GET' }, resource: resource() }, /subject/],
    ['/access/v1/search/resource', { subject: user(), action: { name: 'GET' }, resource: resource() }, /needs subject\.id/],
    ['/access/v1/search/action', { subject: user('rick') }, /resource/],
    ['/access/v1/search/action', { subject: user(), resource: resource('mega-seed') }, /needs subject\.id/],
    ['/access/v1/search/resource', { subject: user('rick'), action: { name: 'GET' }, resource: resource(), page: { limit: -1 } }, /limit/],
  ])('%s answers 400 for %j', async (path, body, message) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    expect(res.body.message).toMatch(message);
  });
});
