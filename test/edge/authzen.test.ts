import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { MAX_EVALUATIONS } from '../../src/decision-protocol';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let rick: string;
let jerry: string;
let morty: string;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = makeEdge(cp.url, dir, { publicUrl: 'http://edge.example:8383' }));
  await edge.runCommand('discovery');
  await edge.runCommand('sync_edge_directory');
  rick = userId(cp.directory, 'rick');
  jerry = userId(cp.directory, 'jerry');
  morty = userId(cp.directory, 'morty');
});

afterAll(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const user = (id: string) => ({ type: 'user', id });
const seed = { type: 'Resource', id: 'mega-seed' };
const act = (name: string) => ({ name });
const evaluation = (body: unknown) => request(edge.app).post('/access/v1/evaluation').send(body as object);
const evaluations = (body: unknown) => request(edge.app).post('/access/v1/evaluations').send(body as object);

describe('GET /.well-known/authzen-configuration', () => {
  it('names the PDP, both evaluation endpoints and the three searches under the public URL', async () => {
    const res = await request(edge.app).get('/.well-known/authzen-configuration').expect(200);
    expect(res.body).toEqual({
      policy_decision_point: 'http://edge.example:8383',
      access_evaluation_endpoint: 'http://edge.example:8383/access/v1/evaluation',
      access_evaluations_endpoint: 'http://edge.example:8383/access/v1/evaluations',
      search_subject_endpoint: 'http://edge.example:8383/access/v1/search/subject',
      search_resource_endpoint: 'http://edge.example:8383/access/v1/search/resource',
      search_action_endpoint: 'http://edge.example:8383/access/v1/search/action',
    });
  });
});

describe('POST /access/v1/evaluation', () => {
  it('decides from the directory: Rick may DELETE, Jerry may only GET; e-mail ids resolve', async () => {
    await evaluation({ subject: user(rick), action: act('DELETE'), resource: seed }).expect(200, { decision: true });
    await evaluation({ subject: user(jerry), action: act('DELETE'), resource: seed }).expect(200, { decision: false });
    await evaluation({ subject: user(jerry), action: act('GET'), resource: seed }).expect(200, { decision: true });
    await evaluation({ subject: user('rick@the-citadel.com'), action: act('DELETE'), resource: seed }).expect(200, { decision: true });
    await evaluation({ subject: user('nobody'), action: act('GET'), resource: seed }).expect(200, { decision: false });
  });

  it('ignores subject properties: roles come from the directory, never the caller', async () => {
    const forged = { type: 'user', id: jerry, properties: { roles: ['admin'] } };
    await evaluation({ subject: forged, action: act('DELETE'), resource: seed, context: { admin: true } }).expect(200, { decision: false });
  });

  it('carries the digest and revision it decided from', async () => {
    const res = await evaluation({ subject: user(rick), action: act('DELETE'), resource: seed }).expect(200);
    expect(res.headers['outpost-policy-digest']).toBe(edge.status().policy_digest);
    expect(res.headers['outpost-directory-revision']).toBe(String(edge.status().directory_revision));
  });

  it.each([
    ['no subject', { action: act('GET'), resource: seed }, /subject/],
    ['a non-user subject', { subject: { type: 'service', id: 'x' }, action: act('GET'), resource: seed }, /unknown subject type/],
    ['a resource type Cedar would not accept', { subject: user(rick), action: act('GET'), resource: { type: 'my-resource', id: 'x' } }, /resource\.type/],
    ['a resource type Cedar reserves', { subject: user(rick), action: act('GET'), resource: { type: 'Outpost::in', id: 'x' } }, /resource\.type/],
    ['a nested resource property', { subject: user(rick), action: act('GET'), resource: { ...seed, properties: { owner: { id: 'x' } } } }, /properties/],
    ['an action that is not a Cedar id', { subject: user(rick), action: act('DELETE"; drop'), resource: seed }, /action\.name/],
  ])('answers 400 with a message for %s', async (_what, body, message) => {
    const res = await evaluation(body).expect(400);
    expect(res.body.message).toMatch(message);
  });

  it('answers 413 for a body over 64 kB and 400 for malformed JSON', async () => {
    await evaluation({ subject: user(rick), action: act('GET'), resource: seed, context: { pad: 'x'.repeat(70_000) } }).expect(413);
    await request(edge.app).post('/access/v1/evaluation').set('content-type', 'application/json').send('{"subject":').expect(400);
  });
});

describe('POST /access/v1/evaluations', () => {
  // Morty (an editor) may GET and PUT but not DELETE. (A function: ids are known only after beforeAll.)
  const three = () => ({
    subject: user(morty),
    resource: seed,
    evaluations: [{ action: act('GET') }, { action: act('DELETE') }, { action: act('PUT') }],
  });

  it('applies the top-level defaults to each item and answers in order', async () => {
    await evaluations(three()).expect(200, { evaluations: [{ decision: true }, { decision: false }, { decision: true }] });
    const mixed = { action: act('DELETE'), resource: seed, evaluations: [{ subject: user(rick) }, { subject: user(jerry) }] };
    await evaluations(mixed).expect(200, { evaluations: [{ decision: true }, { decision: false }] });
  });

  it('stops at the first deny or permit when the semantic says so', async () => {
    await evaluations({ ...three(), options: { evaluations_semantic: 'deny_on_first_deny' } }).expect(200, { evaluations: [{ decision: true }, { decision: false }] });
    await evaluations({ ...three(), options: { evaluations_semantic: 'permit_on_first_permit' } }).expect(200, { evaluations: [{ decision: true }] });
    await evaluations({ ...three(), options: { evaluations_semantic: 'execute_all' } }).expect(200, { evaluations: [{ decision: true }, { decision: false }, { decision: true }] });
  });

  it('treats a body without evaluations, or with an empty array, as one evaluation, and answers like one', async () => {
    await evaluations({ subject: user(rick), action: act('DELETE'), resource: seed }).expect(200, { decision: true });
    await evaluations({ subject: user(jerry), action: act('DELETE'), resource: seed, evaluations: [] }).expect(200, { decision: false });
    const res = await evaluations({ subject: user(rick), resource: seed, evaluations: [] }).expect(400);
    expect(res.body).toEqual({ code: 'bad_request', message: 'the request has no action' });
  });

  it('answers false, with the error in its context, for an item that is not a whole question or is refused', async () => {
    const batch = {
      subject: user(rick),
      evaluations: [
        { action: act('GET'), resource: seed },
        { action: act('GET') },
        { subject: { type: 'service', id: 'x' }, action: act('GET'), resource: seed },
        { action: act('DELETE'), resource: seed },
      ],
    };
    const res = await evaluations(batch).expect(200);
    expect(res.body).toEqual({
      evaluations: [
        { decision: true },
        { decision: false, context: { error: { status: 400, message: 'evaluations[1] has no resource and no default for it' } } },
        { decision: false, context: { error: { status: 400, message: 'unknown subject type "service"; this edge knows "user" and "identity"' } } },
        { decision: true },
      ],
    });
    // A failed item is a deny: deny_on_first_deny stops there.
    const stopped = await evaluations({ ...batch, options: { evaluations_semantic: 'deny_on_first_deny' } }).expect(200);
    expect(stopped.body.evaluations).toHaveLength(2);
  });

  it('refuses an unknown semantic and too many items', async () => {
    await evaluations({ ...three(), options: { evaluations_semantic: 'first_come' } }).expect(400);
    const many = { subject: user(rick), resource: seed, evaluations: Array.from({ length: MAX_EVALUATIONS + 1 }, () => ({ action: act('GET') })) };
    expect((await evaluations(many).expect(400)).body.message).toMatch(`at most ${MAX_EVALUATIONS}`);
  });
});
