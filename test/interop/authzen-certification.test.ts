import { findInteropScenario, startInteropPdp, type InteropPdp } from '../../src/interop';
import { silentLogger } from '../../src/observability';

// The OpenID AuthZEN certification scenario (test/fixtures/authzen/certification, vendored
// from openid/authzen with its source commit named in its README), every level — Basic,
// Batch, Search (Core and Properties each) and Discovery — against a PDP started the way
// `npm run interop -- certification` starts it. Each check is named by the scenario's
// section id and asserts what its harness validates; the passed count per level is printed.

type Level = 'Basic Core' | 'Basic Properties' | 'Batch Core' | 'Batch Properties' | 'Search Core' | 'Search Properties' | 'Discovery';
const passed = new Map<Level, number>();
const counted = new Map<Level, number>();

let pdp: InteropPdp;

beforeAll(async () => {
  pdp = await startInteropPdp({ scenario: findInteropScenario('certification')!, port: 0, logger: silentLogger() });
});

afterAll(async () => {
  await pdp?.close();
  const lines = [...counted].map(([level, n]) => `  ${level}: ${passed.get(level) ?? 0}/${n}`);
  const total = [...counted.values()].reduce((a, b) => a + b, 0);
  const ok = [...passed.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`AuthZEN certification scenario: ${ok}/${total} checks passed\n${lines.join('\n')}\n`);
});

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

async function send(path: string, body: unknown, init: { contentType?: string; raw?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(`${pdp.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json', ...init.headers },
    body: init.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const evaluation = (body: unknown, init?: Parameters<typeof send>[2]) => send('/access/v1/evaluation', body, init);
const evaluations = (body: unknown) => send('/access/v1/evaluations', body);
const search = (kind: 'subject' | 'resource' | 'action', body: unknown) => send(`/access/v1/search/${kind}`, body);

/** One check of the scenario: counted for its level, passed when `run` returns without failing. */
function check(level: Level, id: string, title: string, run: () => Promise<void>): void {
  counted.set(level, (counted.get(level) ?? 0) + 1);
  it(`${level} · ${id} ${title}`, async () => {
    await run();
    passed.set(level, (passed.get(level) ?? 0) + 1);
  });
}

const alice = { type: 'user', id: 'alice' };
const bob = { type: 'user', id: 'bob' };
const record1 = { type: 'record', id: 'record-1' };
const record2Archived = { type: 'record', id: 'record-2', properties: { status: 'archived' } };
const read = { name: 'read' };
const write = { name: 'write' };
const context = { time: '2025-06-27T18:03-07:00', ip: '192.168.1.1' };

async function decides(answer: Promise<Answer>, decision: boolean): Promise<void> {
  const { status, body, headers } = await answer;
  expect(status).toBe(200);
  expect(headers.get('content-type')).toMatch(/^application\/json/);
  expect(body).toEqual({ decision });
}

async function refused(answer: Promise<Answer>): Promise<void> {
  expect((await answer).status).toBe(400);
}

async function batch(answer: Promise<Answer>, decisions: (boolean | undefined)[]): Promise<any[]> {
  const { status, body } = await answer;
  expect(status).toBe(200);
  expect(body.evaluations).toHaveLength(decisions.length);
  body.evaluations.forEach((e: { decision: unknown; context?: unknown }, i: number) => {
    expect(typeof e.decision).toBe('boolean');
    if (decisions[i] !== undefined) expect(e.decision).toBe(decisions[i]);
    if (e.context !== undefined) expect(typeof e.context).toBe('object');
  });
  return body.evaluations;
}

/** A search answer whose results are of `type` (or actions) and include `expected`. */
async function finds(answer: Promise<Answer>, expected: string[], type?: string): Promise<string[]> {
  const { status, body } = await answer;
  expect(status).toBe(200);
  expect(Array.isArray(body.results)).toBe(true);
  const found = body.results.map((r: { type?: string; id?: string; name?: string }) => {
    if (type === undefined) return r.name;
    expect(r.type).toBe(type);
    return r.id;
  });
  expect(found).toEqual(expect.arrayContaining(expected));
  return found.sort();
}

describe('Basic: Access Evaluation API (§2)', () => {
  check('Basic Core', 'c-2-2-1', 'fixture permit', () => decides(evaluation({ subject: alice, action: read, resource: record1 }), true));
  check('Basic Core', 'c-2-2-2', 'fixture deny', () => decides(evaluation({ subject: bob, action: write, resource: record1 }), false));
  check('Basic Core', 'c-2-2-3', 'optional context', () => decides(evaluation({ subject: alice, action: read, resource: record1, context }), true));
  check('Basic Core', 'c-2-2-8', 'additional properties', () =>
    decides(
      evaluation({
        subject: { ...alice, properties: { department: 'Sales', role: 'manager' } },
        action: { ...read, properties: { method: 'GET' } },
        resource: { ...record1, properties: { status: 'active', owner: 'bob' } },
      }),
      true,
    ),
  );
  check('Basic Core', 'c-2-2-9', 'unknown fields ignored', () =>
    decides(evaluation({ subject: alice, action: read, resource: record1, foo: 'bar', futureField: { nested: true } }), true),
  );
  check('Basic Core', 'c-2-3', 'decision is a boolean; a context, if any, an object', async () => {
    const { body } = await evaluation({ subject: alice, action: read, resource: record1 });
    expect(typeof body.decision).toBe('boolean');
    if (body.context !== undefined) expect(typeof body.context).toBe('object');
  });
  check('Basic Core', 'c-2-4-1', 'missing subject, action or resource: 400', async () => {
    await refused(evaluation({ action: read, resource: record1 }));
    await refused(evaluation({ subject: alice, resource: record1 }));
    await refused(evaluation({ subject: alice, action: read }));
  });
  check('Basic Core', 'c-2-4-2', 'missing sub-fields: 400', async () => {
    await refused(evaluation({ subject: { id: 'alice' }, action: read, resource: record1 }));
    await refused(evaluation({ subject: { type: 'user' }, action: read, resource: record1 }));
    await refused(evaluation({ subject: alice, action: {}, resource: record1 }));
    await refused(evaluation({ subject: alice, action: read, resource: { id: 'record-1' } }));
    await refused(evaluation({ subject: alice, action: read, resource: { type: 'record' } }));
  });
  check('Basic Core', 'c-2-4-3', 'a content type other than application/json: 400', () =>
    refused(evaluation({ subject: alice, action: read, resource: record1 }, { contentType: 'text/plain' })),
  );
  check('Basic Core', 'c-2-4-4', 'malformed JSON: 400', () => refused(evaluation(undefined, { raw: '{"subject":' })));
  check('Basic Core', 'c-2-4-5', 'empty body: 400', () => refused(evaluation(undefined, { raw: '' })));
  check('Basic Core', 'c-2-4-6', 'invalid field types: 400', async () => {
    await refused(evaluation({ subject: 'alice', action: read, resource: record1 }));
    await refused(evaluation({ subject: alice, action: { name: 123 }, resource: record1 }));
  });
  check('Basic Core', 'c-2-5', 'X-Request-ID echoed when sent, made when not', async () => {
    const id = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
    const sent = await evaluation({ subject: alice, action: read, resource: record1 }, { headers: { 'x-request-id': id } });
    expect(sent.headers.get('x-request-id')).toBe(id);
    const unsent = await evaluation({ subject: alice, action: read, resource: record1 });
    expect(unsent.status).toBe(200);
  });
  check('Basic Core', 'c-2-6', 'idempotent', async () => {
    for (let i = 0; i < 3; i += 1) await decides(evaluation({ subject: bob, action: write, resource: record1 }), false);
  });

  check('Basic Properties', 'c-2-2-4', 'deny on resource properties (rule 5)', () => decides(evaluation({ subject: alice, action: write, resource: record2Archived }), false));
  check('Basic Properties', 'c-2-2-5', 'permit on subject properties (rule 6)', () =>
    decides(evaluation({ subject: { ...bob, properties: { role: 'admin' } }, action: write, resource: record2Archived }), true),
  );
  check('Basic Properties', 'c-2-2-6', 'permit on action properties (rule 7)', () =>
    decides(evaluation({ subject: alice, action: { name: 'delete', properties: { soft: true } }, resource: record1 }), true),
  );
  check('Basic Properties', 'c-2-2-7', 'deny on action properties (rule 8)', () =>
    decides(evaluation({ subject: alice, action: { name: 'delete', properties: { soft: false } }, resource: record1 }), false),
  );
});

describe('Batch: Access Evaluations API (§3)', () => {
  check('Batch Core', 'c-3-2-1', 'evaluations array', () =>
    batch(evaluations({ subject: alice, action: read, evaluations: [{ resource: record1 }, { resource: { type: 'record', id: 'record-2' } }] }), [undefined, undefined]).then(() => undefined),
  );
  check('Batch Core', 'c-3-2-2', 'fixture decisions, in order', () =>
    batch(evaluations({ subject: bob, resource: record1, evaluations: [{ action: read }, { action: write }] }), [true, false]).then(() => undefined),
  );
  check('Batch Core', 'c-3-2-5', 'fully specified evaluations', () =>
    batch(
      evaluations({ evaluations: [{ subject: alice, action: read, resource: record1 }, { subject: bob, action: write, resource: record1 }] }),
      [true, false],
    ).then(() => undefined),
  );
  check('Batch Core', 'c-3-2-6', 'context inheritance', () =>
    batch(
      evaluations({
        subject: alice,
        action: read,
        context: { time: '2025-06-27T18:03-07:00' },
        evaluations: [{ resource: record1 }, { resource: { type: 'record', id: 'record-2' }, context: { time: '2025-06-27T19:00-07:00', source: 'batch-override' } }],
      }),
      [undefined, undefined],
    ).then(() => undefined),
  );
  check('Batch Core', 'c-3-3', 'as many answers as items, in order, each a decision; no top-level decision', async () => {
    const items = [{ action: read }, { action: write }, { action: read }, { action: write }];
    const { body } = await evaluations({ subject: bob, resource: record1, evaluations: items });
    expect(body.evaluations.map((e: { decision: boolean }) => e.decision)).toEqual([true, false, true, false]);
    expect(body.decision).toBeUndefined();
  });
  check('Batch Core', 'c-3-4-1', 'one bad item under execute_all is a false, not a 400', async () => {
    const answers = await batch(
      evaluations({ subject: alice, action: read, options: { evaluations_semantic: 'execute_all' }, evaluations: [{ resource: record1 }, {}] }),
      [true, false],
    );
    expect(typeof answers[1].context).toBe('object');
  });
  check('Batch Core', 'c-3-4-2', 'no evaluations array: one evaluation', () => decides(evaluations({ subject: alice, action: read, resource: record1 }), true));
  check('Batch Core', 'c-3-4-3', 'empty evaluations array: one evaluation', () =>
    decides(evaluations({ subject: alice, action: read, resource: record1, evaluations: [] }), true),
  );

  check('Batch Properties', 'c-3-2-3', 'resource properties per item', () =>
    batch(
      evaluations({ subject: alice, action: write, evaluations: [{ resource: { ...record1, properties: { status: 'active' } } }, { resource: record2Archived }] }),
      [true, false],
    ).then(() => undefined),
  );
  check('Batch Properties', 'c-3-2-4', 'subject properties per item', () =>
    batch(evaluations({ action: write, resource: record2Archived, evaluations: [{ subject: alice }, { subject: { ...bob, properties: { role: 'admin' } } }] }), [false, true]).then(
      () => undefined,
    ),
  );
  check('Batch Properties', 'c-3-2-7', 'top-level defaults, replaced whole', () =>
    batch(
      evaluations({
        subject: alice,
        action: write,
        resource: { ...record1, properties: { status: 'active' } },
        evaluations: [{}, { resource: record2Archived }],
      }),
      [true, false],
    ).then(() => undefined),
  );
});

describe('Search APIs (§4)', () => {
  const subjectSearch = { subject: { type: 'user' }, action: read, resource: record1 };
  check('Search Core', 'c-4-2-1', 'subject search', async () => {
    await finds(search('subject', subjectSearch), ['alice', 'bob'], 'user');
  });
  check('Search Core', 'c-4-2-2', 'subject search with context: the same results', async () => {
    expect(await finds(search('subject', { ...subjectSearch, context }), ['alice', 'bob'], 'user')).toEqual(await finds(search('subject', subjectSearch), [], 'user'));
  });
  check('Search Core', 'c-4-2-3', 'subject search ignores subject.id', async () => {
    expect(await finds(search('subject', { ...subjectSearch, subject: alice }), ['alice', 'bob'], 'user')).toEqual(await finds(search('subject', subjectSearch), [], 'user'));
  });
  const resourceSearch = { subject: alice, action: read, resource: { type: 'record' } };
  check('Search Core', 'c-4-3-1', 'resource search', async () => {
    await finds(search('resource', resourceSearch), ['record-1'], 'record');
  });
  check('Search Core', 'c-4-3-2', 'resource search with context: the same results', async () => {
    expect(await finds(search('resource', { ...resourceSearch, context }), ['record-1'], 'record')).toEqual(await finds(search('resource', resourceSearch), [], 'record'));
  });
  check('Search Core', 'c-4-3-3', 'resource search ignores resource.id', async () => {
    expect(await finds(search('resource', { ...resourceSearch, resource: record1 }), ['record-1'], 'record')).toEqual(await finds(search('resource', resourceSearch), [], 'record'));
  });
  check('Search Core', 'c-4-4-1', 'action search', async () => {
    await finds(search('action', { subject: alice, resource: record1 }), ['read', 'write']);
  });
  check('Search Core', 'c-4-4-2', 'action search with context: the same results', async () => {
    expect(await finds(search('action', { subject: alice, resource: record1, context }), ['read', 'write'])).toEqual(await finds(search('action', { subject: alice, resource: record1 }), []));
  });
  check('Search Core', 'c-4-5', 'paging: limit, then the token, to an empty next_token', async () => {
    const first = await search('subject', { ...subjectSearch, page: { limit: 1 } });
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(1);
    expect(typeof first.body.page.next_token).toBe('string');
    const seen = [...first.body.results];
    let token: string = first.body.page.next_token;
    while (token !== '') {
      const next = await search('subject', { ...subjectSearch, page: { limit: 1, token } });
      expect(next.status).toBe(200);
      expect(typeof next.body.page.next_token).toBe('string');
      seen.push(...next.body.results);
      token = next.body.page.next_token;
    }
    expect(seen.map((r) => r.id).sort()).toEqual(['alice', 'bob']);
  });
  check('Search Core', 'c-4-6', 'unknown id or type: empty results, on every search', async () => {
    const empty = { status: 200, body: { results: [] } };
    const pick = (a: Answer) => ({ status: a.status, body: a.body });
    expect(pick(await search('action', { subject: { type: 'user', id: 'nonexistent-user' }, resource: record1 }))).toEqual(empty);
    expect(pick(await search('subject', { ...subjectSearch, subject: { type: 'spaceship' } }))).toEqual(empty);
    expect(pick(await search('resource', { subject: alice, action: read, resource: { type: 'spaceship' } }))).toEqual(empty);
    expect(pick(await search('resource', { subject: { type: 'user', id: 'nonexistent-user' }, action: read, resource: { type: 'record' } }))).toEqual(empty);
    expect(pick(await search('subject', { ...subjectSearch, resource: { type: 'record', id: 'nonexistent-record' }, action: write }))).toEqual(empty);
  });
  check('Search Core', 'c-4-7', 'missing fields and input ids: 400', async () => {
    await refused(search('subject', { subject: { type: 'user' }, resource: record1 }));
    await refused(search('resource', { action: read, resource: { type: 'record' } }));
    await refused(search('action', { subject: alice }));
    await refused(search('subject', { subject: { type: 'user' }, action: read, resource: { type: 'record' } }));
    await refused(search('resource', { subject: { type: 'user' }, action: read, resource: { type: 'record' } }));
    await refused(search('action', { subject: { type: 'user' }, resource: record1 }));
  });

  check('Search Properties', 'c-4-2-4', 'subject search with resource properties (S4)', async () => {
    await finds(search('subject', { subject: { type: 'user' }, action: write, resource: record2Archived }), ['bob'], 'user');
  });
  check('Search Properties', 'c-4-3-4', 'resource search with subject properties (S5)', async () => {
    await finds(search('resource', { subject: { ...bob, properties: { role: 'admin' } }, action: write, resource: { type: 'record' } }), ['record-2'], 'record');
  });
  check('Search Properties', 'c-4-4-3', 'action search with properties (S6)', async () => {
    await finds(search('action', { subject: { ...bob, properties: { role: 'admin' } }, resource: record2Archived }), ['write']);
  });
});

describe('Discovery: PDP metadata (§6)', () => {
  check('Discovery', 'c-6', 'the metadata names the PDP and every endpoint', async () => {
    const res = await fetch(`${pdp.url}/.well-known/authzen-configuration`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, string>;
    expect(body.policy_decision_point).toBe(pdp.url);
    for (const [key, path] of [
      ['access_evaluation_endpoint', '/access/v1/evaluation'],
      ['access_evaluations_endpoint', '/access/v1/evaluations'],
      ['search_subject_endpoint', '/access/v1/search/subject'],
      ['search_resource_endpoint', '/access/v1/search/resource'],
      ['search_action_endpoint', '/access/v1/search/action'],
    ]) {
      expect(body[key!]).toBe(`${pdp.url}${path}`);
    }
  });
});

describe("beyond the scenario: the caller's properties and context reach the policy as Cedar context", () => {
  it('subject.properties.role decides for a user the directory does not make an admin', async () => {
    await decides(evaluation({ subject: { ...alice, properties: { role: 'admin' } }, action: write, resource: record2Archived }), true);
    await decides(evaluation({ subject: { ...alice, properties: { role: 'viewer' } }, action: write, resource: record2Archived }), false);
    // AuthZEN's context is the Cedar context too: there, `subject` is replaced by subject.properties.
    await decides(evaluation({ subject: alice, action: write, resource: record2Archived, context: { subject: { role: 'admin' } } }), true);
    await decides(evaluation({ subject: { ...alice, properties: {} }, action: write, resource: record2Archived, context: { subject: { role: 'admin' } } }), false);
  });

  it('a property of another type than the schema declares is ignored, not an error', async () => {
    await decides(evaluation({ subject: alice, action: { name: 'delete', properties: { soft: 'yes' } }, resource: record1 }), false);
    await decides(evaluation({ subject: { ...alice, properties: { role: ['admin'] } }, action: write, resource: record2Archived }), false);
  });
});
