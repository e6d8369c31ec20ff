/**
 * Reasons on request (`Outpost-Explain: reasons`) on the edge's three decision endpoints: the
 * determining policy as `<file>:<line>` with its first comment line, or "no policy permits";
 * answers without the header keep the protocols' exact shapes; the log line names the
 * determining policies either way, and every AuthZEN decision becomes a decision record.
 */
import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';
import { decisionRecords } from '../../src/decision-records';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
const records = decisionRecords({ app: 'sidecar' });
let lines: LogLine[];
let rick: string;
let jerry: string;

/** Where rbac.cedar's admin rule starts, and its comment (policies/rbac/rbac.cedar as shipped). */
const ADMINS = { policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' };
const VIEWERS = { policy: 'rbac.cedar:5', comment: 'Viewers (and everyone above them) may read.' };
const NONE = { policy: null, comment: 'no policy permits' };

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  const captured = capturingLogger();
  lines = captured.lines;
  ({ edge } = await makeSyncedEdge(cp.url, dir, { logger: captured.logger, plugins: [records] }));
  rick = userId(cp.directory, 'rick');
  jerry = userId(cp.directory, 'jerry');
});

afterAll(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const seed = { type: 'Resource', id: 'mega-seed' };
const ask = (who: string, action: string) => ({ subject: { type: 'user', id: who }, action: { name: action }, resource: seed });
const explained = (path: string) => request(edge.app).post(path).set('Outpost-Explain', 'reasons');

describe('AuthZEN evaluation', () => {
  it('answers exactly {"decision": …} without the header', async () => {
    await request(edge.app).post('/access/v1/evaluation').send(ask(rick, 'DELETE')).expect(200, { decision: true });
  });

  it('names the permitting policy and its comment for an allow, "no policy permits" for a deny', async () => {
    const allow = await explained('/access/v1/evaluation').send(ask(rick, 'DELETE')).expect(200);
    expect(allow.body).toEqual({ decision: true, context: { reason_admin: { en: `permitted by ${ADMINS.policy} (${ADMINS.comment})` }, reasons: [ADMINS] } });
    const deny = await explained('/access/v1/evaluation').send(ask(jerry, 'DELETE')).expect(200);
    expect(deny.body).toEqual({ decision: false, context: { reason_admin: { en: 'denied: no policy permits' }, reasons: [NONE] } });
  });

  it('explains each item of a batch, and keeps an item error as it was', async () => {
    const res = await explained('/access/v1/evaluations')
      .send({ subject: { type: 'user', id: jerry }, resource: seed, evaluations: [{ action: { name: 'GET' } }, { action: { name: 'DELETE' } }, { subject: { type: 'group', id: 'x' }, action: { name: 'GET' } }] })
      .expect(200);
    expect(res.body.evaluations[0]).toEqual({ decision: true, context: { reason_admin: { en: `permitted by ${VIEWERS.policy} (${VIEWERS.comment})` }, reasons: [VIEWERS] } });
    expect(res.body.evaluations[1].context.reasons).toEqual([NONE]);
    expect(res.body.evaluations[2]).toEqual({ decision: false, context: { error: { status: 400, message: expect.stringContaining('unknown subject type "group"') } } });
  });

  it('refuses any other value of the header', async () => {
    const res = await request(edge.app).post('/access/v1/evaluation').set('Outpost-Explain', 'everything').send(ask(rick, 'GET')).expect(400);
    expect(res.body).toEqual({ code: 'invalid_explain', message: 'outpost-explain takes "reasons"' });
  });

  it('logs the determining policies and queues a decision record, with or without the header', async () => {
    lines.length = 0;
    records.log.take(10_000);
    await request(edge.app).post('/access/v1/evaluation').set('X-Request-Id', 'why-rick').send(ask(rick, 'DELETE')).expect(200);
    const line = lines.find((l) => l.msg === 'decision')!;
    expect(line.decisions).toEqual([expect.objectContaining({ decision: true, reasons: [ADMINS.policy] })]);
    const taken = records.log.take(10);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ decision: 'allow', action: 'DELETE', reasons: [ADMINS], resource: seed });
  });
});

describe('the Topaz-shaped is', () => {
  const is = (who: string, decisions = ['allowed']) => ({
    identity_context: { type: 'IDENTITY_TYPE_SUB', identity: who },
    policy_context: { path: 'rbac.DELETE', decisions },
    resource_context: seed,
  });

  it('answers the Topaz shape without the header, and each answer with its reasons with it', async () => {
    await request(edge.app).post('/api/v2/authz/is').send(is(rick)).expect(200, { decisions: [{ decision: 'allowed', is: true }] });
    const res = await explained('/api/v2/authz/is').send(is(jerry)).expect(200);
    expect(res.body).toEqual({ decisions: [{ decision: 'allowed', is: false, reasons: [NONE] }] });
    const anonymous = await explained('/api/v2/authz/is').send({ ...is(rick), identity_context: { type: 'IDENTITY_TYPE_NONE' } }).expect(200);
    expect(anonymous.body).toEqual({ decisions: [{ decision: 'allowed', is: false, reasons: [NONE] }] });
  });

  it('logs the determining policies', async () => {
    lines.length = 0;
    await request(edge.app).post('/api/v2/authz/is').send(is(rick)).expect(200);
    expect(lines.find((l) => l.msg === 'decision')).toMatchObject({ decision: true, reasons: [ADMINS.policy] });
  });
});
