import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { Edge } from '../../src/sidecar';
import { engineVersion, policyVerdicts, VERDICT_FILE } from '../../src/edge/policy-verdict';
import { createPolicyImage, type PolicyImage } from '../../src/policy';
import { VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { CREDENTIALS, rbacImage, startFakeControlPlane } from './fake-control-plane';

// An edge keeps the verdict of its persisted image's own tests by digest and engine, so a
// restart only compiles. The oracle for "the tests ran" is an image that fails them: loaded
// means they were skipped, refused means they ran.

const image = rbacImage();
// A valid image with a correct digest that breaks the shipped cases saying viewers may not PUT or POST.
const failing = createPolicyImage('rbac', {
  ...image.files,
  'rbac.cedar': image.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"'),
});

let dir: string;
let edge: Edge | undefined;
beforeEach(() => (dir = tempDir()));
afterEach(async () => {
  await edge?.close();
  edge = undefined;
  removeDir(dir);
});

/** The edge restarted on `dir` with the control plane unreachable: what it loads is what it had on disk. Resolves with its log lines. */
async function restart(): Promise<{ msg: string; err?: string }[]> {
  await edge?.close();
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  ({ edge } = makeEdge('http://127.0.0.1:9', dir, { logger }));
  await edge.start();
  return lines.map((l) => JSON.parse(l) as { msg: string; err?: string });
}

const persist = (img: PolicyImage) => writeFileSync(join(dir, 'policy-image.json'), JSON.stringify(img));
const loaded = () => edge!.status().policy_digest;
const SKIPPED = 'persisted policy image compiled; its tests passed before under this engine';

it('records the verdict when a synced image passes its tests, and a restart compiles that image without running them', async () => {
  const cp = await startFakeControlPlane();
  try {
    ({ edge } = makeEdge(cp.url, dir));
    await edge.runCommand('discovery');
  } finally {
    await cp.close();
  }
  const verdict = JSON.parse(readFileSync(join(dir, VERDICT_FILE), 'utf8')) as Record<string, string>;
  expect(verdict).toEqual({ digest: image.digest, engine: engineVersion(), mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(engineVersion()).toMatch(/^cedar-wasm \d+\.\d+\.\d+; outpost decision [0-9a-f]{16}$/);
  const log = await restart();
  expect(loaded()).toBe(image.digest);
  expect(log.map((l) => l.msg)).toContain(SKIPPED);
});

it('skips the tests for the digest and engine of its verdict, and runs them when either differs', async () => {
  // A verdict this edge wrote for an image that then passed (under an engine that decided otherwise, say):
  // with the same digest and engine it is trusted, and the failing tests are not run.
  persist(failing);
  policyVerdicts(dir, CREDENTIALS.connectionSecret).record(failing.digest);
  expect((await restart()).map((l) => l.msg)).toContain(SKIPPED);
  expect(loaded()).toBe(failing.digest);

  // Another engine (a Cedar or Outpost upgrade): the tests run again, and refuse the image.
  policyVerdicts(dir, CREDENTIALS.connectionSecret, 'cedar-wasm 0.0.1; outpost decision 0000000000000000').record(failing.digest);
  let log = await restart();
  expect(loaded()).toBeNull();
  expect(log.find((l) => l.msg === 'ignoring the persisted policy image')?.err).toBe(VIEWERS_WRITE_REFUSAL);

  // Another digest: the verdict is for the image that passes, the file on disk is another one.
  policyVerdicts(dir, CREDENTIALS.connectionSecret).record(image.digest);
  log = await restart();
  expect(loaded()).toBeNull();
  expect(log.map((l) => l.msg)).not.toContain(SKIPPED);
});

describe('a tampered verdict cannot make an image that fails its tests pass (fail closed)', () => {
  beforeEach(() => persist(failing));

  it.each([
    ['edited to name the image on disk', () => {
      policyVerdicts(dir, CREDENTIALS.connectionSecret).record(image.digest);
      const v = JSON.parse(readFileSync(join(dir, VERDICT_FILE), 'utf8')) as Record<string, string>;
      writeFileSync(join(dir, VERDICT_FILE), JSON.stringify({ ...v, digest: failing.digest }));
    }],
    ['written by an edge with another connection secret (copied)', () => policyVerdicts(dir, 'another edge\'s secret').record(failing.digest)],
    ['with no MAC', () => writeFileSync(join(dir, VERDICT_FILE), JSON.stringify({ digest: failing.digest, engine: engineVersion() }))],
    ['with a MAC of the wrong length', () => writeFileSync(join(dir, VERDICT_FILE), JSON.stringify({ digest: failing.digest, engine: engineVersion(), mac: 'ab' }))],
    ['not JSON', () => writeFileSync(join(dir, VERDICT_FILE), '{"digest": ')],
  ])('%s: the tests run and refuse the image', async (_what, tamper) => {
    tamper();
    const log = await restart();
    expect(loaded()).toBeNull();
    expect(log.find((l) => l.msg === 'ignoring the persisted policy image')?.err).toBe(VIEWERS_WRITE_REFUSAL);
  });

  it('leaves no verdict for an image that failed', async () => {
    await restart();
    expect(existsSync(join(dir, VERDICT_FILE))).toBe(false);
  });
});
