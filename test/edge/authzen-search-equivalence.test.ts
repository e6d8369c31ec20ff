import fc from 'fast-check';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { DirectoryData } from '../../src/directory';
import type { Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import { readPolicyFolder } from '../../src/policy';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { root, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane';

// A search answers exactly what evaluating each candidate decides. On randomised
// directories — users with any roles, resources with any relations; users with a job and a
// department, records with a department and an owner — a real sidecar (port 0) is asked
// every search, paged with a random page size, and every evaluation behind it; the two
// must agree, for the role-based, the relation-based and the search scenario's policy.

const RUNS = 25;
/**
 * A property's 25 directories are ~6,000 requests to the sidecar: seconds on a quiet machine,
 * far more on a busy one. Its own generous bound, so a slow machine never cuts a run short —
 * a cut run kept going in the background and raced the next policy's (a false failure).
 */
const PROPERTY_TIMEOUT_MS = 180_000;

/** A policy under test: its resource type and actions, and random directories for it. */
interface Setup {
  readonly policy: string;
  readonly type: string;
  readonly actions: readonly string[];
  readonly roles: DirectoryData['roles'];
  readonly directories: fc.Arbitrary<Generated>;
}

type Generated = Omit<DirectoryData, 'revision' | 'roles'> & { readonly pageSize: number };

const ids = (prefix: string, maxLength: number, minLength = 0) =>
  fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength, maxLength }).map((ns) => ns.map((n) => `${prefix}-${n}`));
const role = (id: string) => ({ id, includes: [] as string[] });

/** Citadel roles (admin ⊃ editor ⊃ viewer, evil_genius) and resources with any relations: policies/rbac and policies/rebac. */
function citadelLike(policy: string): Setup {
  const directories = fc.record({ users: ids('u', 5, 1), resources: ids('r', 4), pageSize: fc.integer({ min: 1, max: 4 }) }).chain(({ users, resources, pageSize }) =>
    fc.record({
      users: fc.tuple(...users.map((id) => fc.subarray(['viewer', 'editor', 'admin', 'evil_genius']).map((roles) => ({ id, email: `${id}@example.com`, name: id, roles })))),
      resources: fc.tuple(
        ...resources.map((id) => fc.record({ owner: fc.subarray(users), writer: fc.subarray(users), reader: fc.subarray(users) }).map((relations) => ({ id, relations }))),
      ),
      pageSize: fc.constant(pageSize),
    }),
  );
  const roles = [role('viewer'), { id: 'editor', includes: ['viewer'] }, { id: 'admin', includes: ['editor'] }, role('evil_genius')];
  return { policy, type: 'Resource', actions: ['GET', 'PUT', 'POST', 'DELETE'], roles, directories };
}

/** Users with a job and a department, records with a department and an owner: policies/authzen-search. */
function records(): Setup {
  const departments = ['Sales', 'Legal', 'Finance'];
  const directories = fc.record({ users: ids('u', 5, 1), resources: ids('r', 5), pageSize: fc.integer({ min: 1, max: 4 }) }).chain(({ users, resources, pageSize }) =>
    fc.record({
      users: fc.tuple(
        ...users.map((id) =>
          fc
            .record({ job: fc.constantFrom('manager', 'employee', 'contractor'), department: fc.constantFrom(...departments) })
            .map(({ job, department }) => ({ id, email: `${id}@example.com`, name: id, roles: [job], properties: { department } })),
        ),
      ),
      resources: fc.tuple(
        ...resources.map((id) =>
          fc
            .record({ department: fc.constantFrom(...departments), owner: fc.constantFrom(...users, 'u-gone') })
            .map((properties) => ({ id, type: 'record', properties, relations: { owner: [], writer: [], reader: [] } })),
        ),
      ),
      pageSize: fc.constant(pageSize),
    }),
  );
  return { policy: 'authzen-search', type: 'record', actions: ['view', 'edit', 'delete'], roles: ['manager', 'employee', 'contractor'].map(role), directories };
}

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let server: Server;
let url: string;
let revision = 100;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir));
  server = await listen(edge.app, 0, '127.0.0.1');
  url = baseUrl(server);
});

afterAll(async () => {
  await close(server);
  await edge.close();
  await cp.close();
  removeDir(dir);
});

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Every result of a search, following next_token page by page. */
async function searchAll(kind: string, body: object, pageSize: number): Promise<string[]> {
  const found: string[] = [];
  let token = '';
  do {
    const answer = await post(`/access/v1/search/${kind}`, { ...body, page: { limit: pageSize, ...(token ? { token } : {}) } });
    for (const r of answer.results) found.push(r.id ?? r.name);
    token = answer.page.next_token;
  } while (token);
  return found.sort();
}

async function loadDirectory(roles: DirectoryData['roles'], data: Generated): Promise<void> {
  revision += 1;
  cp.directory = { revision, roles, users: data.users, resources: data.resources };
  await edge.runCommand('sync_edge_directory');
  expect(edge.status().directory_revision).toBe(revision);
}

async function checkEquivalence(setup: Setup, generated: Generated): Promise<void> {
  const { type, actions: ACTIONS } = setup;
  await loadDirectory(setup.roles, generated);
  const subjects = [...generated.users.map((u) => u.id), 'ghost'];
  const resources = [...generated.resources.map((r) => r.id), 'r-unknown'];
  const permitted = new Set<string>();
  for (const s of subjects) {
    for (const a of ACTIONS) {
      for (const r of resources) {
        const { decision } = await post('/access/v1/evaluation', { subject: { type: 'user', id: s }, action: { name: a }, resource: { type, id: r } });
        if (decision) permitted.add(`${s} ${a} ${r}`);
      }
    }
  }
  const known = (list: string[]) => list.filter((x) => x !== 'ghost' && x !== 'r-unknown');
  for (const a of ACTIONS) {
    for (const r of resources) {
      const found = await searchAll('subject', { subject: { type: 'user' }, action: { name: a }, resource: { type, id: r } }, generated.pageSize);
      expect(found).toEqual(known(subjects).filter((s) => permitted.has(`${s} ${a} ${r}`)).sort());
    }
    for (const s of subjects) {
      const found = await searchAll('resource', { subject: { type: 'user', id: s }, action: { name: a }, resource: { type } }, generated.pageSize);
      // A resource outside the directory is no candidate: only the directory's can be found.
      expect(found).toEqual(known(resources).filter((r) => permitted.has(`${s} ${a} ${r}`)).sort());
    }
  }
  for (const s of subjects) {
    for (const r of resources) {
      const found = await searchAll('action', { subject: { type: 'user', id: s }, resource: { type, id: r } }, generated.pageSize);
      expect(found).toEqual([...ACTIONS].filter((a) => permitted.has(`${s} ${a} ${r}`)).sort());
    }
  }
}

describe.each([citadelLike('rbac'), citadelLike('rebac'), records()])('search ≡ evaluation of every candidate, policy $policy', (setup) => {
  beforeAll(async () => {
    cp.image = readPolicyFolder(join(root, 'policies', setup.policy));
    await edge.runCommand('discovery');
    expect(edge.state.policy?.image.name).toBe(setup.policy);
  });

  it(`holds on ${RUNS} random directories`, async () => {
    await fc.assert(
      fc.asyncProperty(setup.directories, (generated) => checkEquivalence(setup, generated)),
      { numRuns: RUNS },
    );
  }, PROPERTY_TIMEOUT_MS);
});
