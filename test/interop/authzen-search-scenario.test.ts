import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { findInteropScenario, startInteropPdp, type InteropPdp } from '../../src/interop';
import { silentLogger } from '../../src/observability';

// The OpenID AuthZEN search interop scenario (test/fixtures/authzen/search, vendored from
// openid/authzen with its source commit named in its README), against a PDP started the
// way `npm run interop -- search` starts it: control plane, policy image, directory and
// edge, all real. Every case must answer HTTP 200 and exactly the expected entities (in
// any order, as the working group's runner compares them); the count is printed.

const root = findProjectRoot();
const fixtures = join(root, 'test', 'fixtures', 'authzen', 'search');
const read = (file: string) => JSON.parse(readFileSync(join(fixtures, file), 'utf8'));

interface Case {
  readonly request: Record<string, unknown>;
  readonly expected: { results: Record<string, string>[] };
}
const suites = (['subject', 'resource', 'action'] as const).map((kind) => ({ kind, cases: read(`${kind}/results.json`).evaluation as Case[] }));
const total = suites.reduce((n, s) => n + s.cases.length, 0);

/** Results in one order, whatever order the PDP answered in. */
const sorted = (results: Record<string, string>[]) => [...results].map((r) => JSON.stringify(r)).sort();

let pdp: InteropPdp;
const passed = { count: 0 };

beforeAll(async () => {
  pdp = await startInteropPdp({ scenario: findInteropScenario('search')!, port: 0, logger: silentLogger() });
});

afterAll(async () => {
  await pdp?.close();
  process.stdout.write(`AuthZEN search scenario: ${passed.count}/${total} cases passed\n`);
});

describe('the fixture', () => {
  it('holds the 198 cases of the scenario', () => {
    expect(suites.map((s) => [s.kind, s.cases.length])).toEqual([
      ['subject', 60],
      ['resource', 18],
      ['action', 120],
    ]);
  });

  it("is what the scenario's directory holds: its users and their jobs and departments, its records with department and owner", () => {
    const { directory } = loadDirectorySeed(join(root, findInteropScenario('search')!.directorySeed));
    const users = directory.users.map((u) => ({ id: u.id, role: u.roles.join(), department: u.properties?.department }));
    expect(users).toEqual(read('data/users.json'));
    const records = directory.resources.map((r) => ({ type: r.type, id: r.id, department: r.properties?.department, owner: r.properties?.owner }));
    const expected = (read('data/records.json') as { id: number; department: string; owner: string }[]).map((r) => ({ type: 'record', id: String(r.id), department: r.department, owner: r.owner }));
    expect(records).toEqual(expected);
  });
});

describe.each(suites)('POST /access/v1/search/$kind', ({ kind, cases }) => {
  it.each(cases.map((c, i) => [i + 1, c] as const))(`case %i of ${cases.length}`, async (_n, c) => {
    const res = await fetch(`${pdp.url}/access/v1/search/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.request) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Record<string, string>[] };
    expect(Object.keys(body)).toEqual(['results']);
    expect(sorted(body.results)).toEqual(sorted(c.expected.results));
    passed.count += 1;
  });
});
