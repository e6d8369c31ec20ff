import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { createPolicyImage, preparsedCount } from '../../src/policy';
import { markEngineUnhealthy, resetEngine } from '../../packages/cedar-authorizer/src/cedar-engine';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
const image = rbacImage();

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir));
});

afterEach(async () => {
  resetEngine();
  await edge.close();
  await cp.close();
  removeDir(dir);
});

async function rickMayDelete(): Promise<boolean> {
  const res = await request(edge.app)
    .post('/api/v2/authz/is')
    .send({
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: userId(cp.directory, 'rick') },
      policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
      resource_context: { type: 'Resource', id: 'mega-seed' },
    })
    .expect(200);
  return (res.body as { decisions: { is: boolean }[] }).decisions[0]!.is;
}

const when = (body: string): string => `permit(principal, action, resource) when { ${body} };\n`;
const nestedIf = (depth: number): string => (depth === 0 ? 'true' : `if true then ${nestedIf(depth - 1)} else false`);

describe('the edge and the Cedar engine', () => {
  it.each([
    ['150 nested parentheses', when(`${'('.repeat(150)}true${')'.repeat(150)}`), 'nesting deeper than 32'],
    ['400 nested if', when(nestedIf(400)), 'nesting deeper than 32'],
    ['a 1,000-term sum', when(`${Array(1000).fill('1').join(' + ')} == 1`), 'more than 128 operators in one policy'],
  ])('refuses an image with %s that got past the control plane: invalid_image, last good image kept', async (_name, poison, reason) => {
    cp.image = createPolicyImage('rbac', { ...image.files, 'poison.cedar': poison });
    await expect(edge.runCommand('discovery')).resolves.toEqual({
      ok: false,
      error: { code: 'invalid_image', message: expect.stringContaining(`poison.cedar:1: ${reason}`) },
    });
    expect(edge.status().policy_digest).toBe(image.digest);
    await expect(rickMayDelete()).resolves.toBe(true);
    await request(edge.app).get('/readyz').expect(200, { status: 'ready', policy: true, directory: true });
  });

  it('keeps deciding from the images it holds after the engine instance is replaced', async () => {
    resetEngine();
    await expect(rickMayDelete()).resolves.toBe(true);
    await request(edge.app).get('/readyz').expect(200, { status: 'ready', policy: true, directory: true });
  });

  it('answers 503 on /readyz when the engine can no longer decide', async () => {
    markEngineUnhealthy();
    await request(edge.app).get('/readyz').expect(503, { status: 'not_ready', policy: true, directory: true, engine: false });
  });

  it('releases the image it swaps out: five swaps leave one image held', async () => {
    const before = preparsedCount();
    for (let i = 0; i < 5; i += 1) {
      cp.image = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': `${image.files['rbac.cedar']}\n// v${i}\n` });
      await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true });
    }
    expect(preparsedCount()).toBe(before);
    expect(edge.status().policy_digest).toBe((cp.image as { digest: string }).digest);
    await expect(rickMayDelete()).resolves.toBe(true);
  });
});
