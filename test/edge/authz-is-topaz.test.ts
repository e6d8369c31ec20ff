/**
 * `POST /api/v2/authz/is` takes what Topaz's REST gateway takes: protojson field names in
 * snake_case or lowerCamelCase (one field in both spellings is refused, as protojson refuses
 * it), the identity type by name or by its enum number, and `resource_context` as the Struct
 * it is — nested values reach the policy as records and sets in `context.resource`. A real
 * edge, synced from the fake control plane serving a policy that reads such a value.
 */
import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { createPolicyImage } from '../../src/policy';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

const SCHEMA = `namespace Outpost {
  entity Role in [Role];
  entity User in [Role] { email: String, name: String };
  entity Document { owner?: User };
  type Labels = { department?: String, tags?: Set<String>, level?: Long };
  action read appliesTo { principal: User, resource: Document, context: { resource?: { labels?: Labels } } };
}
`;
const POLICY = `// Anyone may read a research document, as its labels say.
permit (principal, action == Outpost::Action::"read", resource is Outpost::Document)
when { context has resource && context.resource has labels && context.resource.labels has department && context.resource.labels.department == "research" };

// Anyone may read a document tagged public at level 2 or below.
permit (principal, action == Outpost::Action::"read", resource is Outpost::Document)
when {
  context has resource && context.resource has labels && context.resource.labels has tags && context.resource.labels has level &&
  context.resource.labels.tags.contains("public") && context.resource.labels.level <= 2
};

// An owner may read their document.
permit (principal, action == Outpost::Action::"read", resource is Outpost::Document)
when { resource has owner && resource.owner == principal };
`;

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let jerry: string;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  cp.image = createPolicyImage('docs', { 'manifest.json': '{"name":"docs"}\n', 'schema.cedarschema': SCHEMA, 'docs.cedar': POLICY });
  dir = tempDir();
  ({ edge } = makeEdge(cp.url, dir));
  for (const command of ['discovery', 'sync_edge_directory'] as const) expect((await edge.runCommand(command)).ok).toBe(true);
  jerry = userId(cp.directory, 'jerry');
});

afterAll(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const post = (body: unknown) => request(edge.app).post('/api/v2/authz/is').send(body as object);
const answer = (is: boolean) => ({ decisions: [{ decision: 'allowed', is }] });

/** Jerry (a viewer, owner of nothing) asks to read doc-1, which `resource` describes. */
function snake(resource: Record<string, unknown> = {}, identity: Record<string, unknown> = { type: 'IDENTITY_TYPE_SUB', identity: 'jerry@the-smiths.com' }) {
  return {
    identity_context: identity,
    policy_context: { path: 'docs.read', decisions: ['allowed'] },
    resource_context: { type: 'Document', id: 'doc-1', ...resource },
  };
}

/** The same body, every field name in lowerCamelCase (the Struct's own keys are data: unchanged). */
function camel(resource: Record<string, unknown> = {}, identity?: Record<string, unknown>) {
  const { identity_context, policy_context, resource_context } = snake(resource, identity);
  return { identityContext: identity_context, policyContext: policy_context, resourceContext: resource_context };
}

const research = { labels: { department: 'research' } };

describe('field names: snake_case and lowerCamelCase, as protojson reads them', () => {
  it.each([
    ['snake_case', snake],
    ['lowerCamelCase', camel],
  ])('%s: the same answers', async (_spelling, body) => {
    await post(body(research)).expect(200, answer(true));
    await post(body({ labels: { department: 'sales' } })).expect(200, answer(false));
    await post(body({ owner: jerry })).expect(200, answer(true));
    await post(body()).expect(200, answer(false));
  });

  it('mixed spellings in one body, and the freshness fields in camelCase too', async () => {
    const { identity_context, policy_context, resource_context } = snake(research);
    const mixed = { identityContext: identity_context, policy_context, resourceContext: resource_context, minDirectoryRevision: 1 };
    await post(mixed).expect(200, answer(true));
    const ahead = { ...mixed, minDirectoryRevision: 99 };
    const res = await post(ahead);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('not_fresh');
  });

  it('policy_instance (either spelling), which Topaz reads and an edge of one image has no use for, is ignored', async () => {
    const instance = { name: 'docs', instance_label: 'docs' };
    await post({ ...snake(research), policy_instance: instance }).expect(200, answer(true));
    await post({ ...camel(research), policyInstance: { name: 'docs', instanceLabel: 'docs' } }).expect(200, answer(true));
  });

  it.each([
    ['identity_context', 'identityContext'],
    ['policy_context', 'policyContext'],
    ['resource_context', 'resourceContext'],
    ['min_directory_revision', 'minDirectoryRevision'],
  ])('%s and %s in one body: 400, as protojson refuses a field set twice', async (proto, json) => {
    const body: Record<string, unknown> = { ...snake(research), min_directory_revision: 1 };
    body[json] = body[proto];
    await post(body).expect(400, { code: 'bad_request', message: `${proto} and ${json} name the same field; send one` });
  });

  it('a camelCase body with a field missing names it as the snake_case one (the schema of record)', async () => {
    const { identityContext, resourceContext } = camel(research);
    const res = await post({ identityContext, resourceContext }).expect(400);
    expect(res.body).toEqual({ code: 'bad_request', message: expect.stringContaining('policy_context') });
  });
});

describe('identity types by enum number, as protojson takes an enum', () => {
  it.each([
    [2, 'jerry@the-smiths.com', { owner: 'jerry@the-smiths.com' }, true],
    [2, 'jerry@the-smiths.com', {}, false],
    [1, undefined, research, false],
  ])('type %s (identity %s)', async (type, identity, resource, is) => {
    await post(snake(resource, identity === undefined ? { type } : { type, identity })).expect(200, answer(is));
  });

  it.each([[0], [4], ['IDENTITY_TYPE_MANUAL'], [2.5]])('%s is not one Outpost takes: 400 bad_request', async (type) => {
    const res = await post(snake(research, { type, identity: 'jerry@the-smiths.com' })).expect(400);
    expect(res.body.code).toBe('bad_request');
  });
});

describe('nested resource_context values reach the policy as records and sets (context.resource)', () => {
  it('a record the policy reads: its value decides', async () => {
    await post(snake({ labels: { department: 'research', unread: { deeper: [1, 2] } } })).expect(200, answer(true));
    await post(snake({ labels: { department: 'Research' } })).expect(200, answer(false));
  });

  it('a set inside it: the policy’s contains() reads it', async () => {
    await post(snake({ labels: { tags: ['draft', 'public'], level: 2 } })).expect(200, answer(true));
    await post(snake({ labels: { tags: ['draft'], level: 2 } })).expect(200, answer(false));
    await post(snake({ labels: { tags: ['public'], level: 3 } })).expect(200, answer(false));
  });

  it('a value of another type than the schema declares is not taken, so it permits nothing (200 false, never an allow)', async () => {
    await post(snake({ labels: { department: 5 } })).expect(200, answer(false));
    await post(snake({ labels: 'research' })).expect(200, answer(false));
    await post(snake({ labels: null })).expect(200, answer(false));
    await post(snake({ labels: { tags: 'public', level: 1 } })).expect(200, answer(false));
  });

  it('nested values beside flat ones: each in its place, the flat one still the resource’s attribute', async () => {
    await post(snake({ owner: jerry, labels: { department: 'sales' } })).expect(200, answer(true));
    await post(snake({ owner: 'rick@the-citadel.com', labels: { department: 'sales' } })).expect(200, answer(false));
  });

  it('a flat value of the wrong type is still 400 invalid_property, nested values or not', async () => {
    const refusal = { code: 'invalid_property', message: 'resource property "owner" must be a string (an entity id), not 5' };
    await post(snake({ owner: 5 })).expect(400, refusal);
    await post(camel({ owner: 5, labels: { department: 'research' } })).expect(400, refusal);
  });

  it('the other limits hold: a flat string over 512 characters, more than 32 attributes', async () => {
    await post(snake({ note: 'x'.repeat(513) })).expect(400);
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`a${i}`, { n: i }]));
    await post(snake(many)).expect(400);
  });
});
