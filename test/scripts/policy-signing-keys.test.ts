import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ScriptError } from '../../scripts/lib/script-error';
import { keyPairFiles, parseSignedVersion, readPrivateKey, readPublicKeys, writeKeyPair } from '../../scripts/lib/signing-key-files';
import { baseUrl, close, listen } from '../../src/http';
import { readPolicyFolder, signPolicyImage, signingKeyId, verifyImageSignature } from '../../src/policy';
import { makeFixture, policiesDir, type Fixture } from '../control-plane/fixture';
import { compiled } from '../helpers/compiled';
import { createSigningKeyRepository } from '../../src/signing-keys/signing-key-repository';

const IMAGE = { name: 'rbac', digest: `sha256:${'ab'.repeat(32)}` };
const run = promisify(execFile);
const script = compiled('scripts/policy.ts');

describe('npm run policy -- keygen / push --sign key files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['Ed25519', 'ES256'] as const)('%s: writes the private key 0600 and the public key set 0644; they sign and verify', async (alg) => {
    const prefix = join(dir, 'signing');
    const files = await writeKeyPair(prefix, alg);
    expect(files).toEqual({ ...keyPairFiles(prefix), kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(statSync(files.privateFile).mode & 0o777).toBe(0o600);
    expect(statSync(files.publicFile).mode & 0o777).toBe(0o644);
    const privateKey = readPrivateKey(files.privateFile);
    const publicKeys = readPublicKeys(files.publicFile);
    expect(publicKeys).toHaveLength(1);
    expect(JSON.stringify(publicKeys)).not.toContain('"d"');
    expect(await signingKeyId(publicKeys[0]!)).toBe(files.kid);
    await expect(verifyImageSignature(IMAGE, await signPolicyImage({ ...IMAGE, version: 1 }, privateKey), publicKeys)).resolves.toEqual({ ...IMAGE, version: 1 });
  });

  it('never overwrites an existing key file', async () => {
    const prefix = join(dir, 'signing');
    const first = await writeKeyPair(prefix, 'Ed25519');
    const before = readFileSync(first.privateFile, 'utf8');
    await expect(writeKeyPair(prefix, 'Ed25519')).rejects.toThrow(new ScriptError(`${first.privateFile} already exists; choose another --out or remove it`));
    expect(readFileSync(first.privateFile, 'utf8')).toBe(before);
  });

  it('refuses the wrong half: a public file to sign with, a private file to register', async () => {
    const files = await writeKeyPair(join(dir, 'signing'), 'Ed25519');
    expect(() => readPrivateKey(files.publicFile)).toThrow(ScriptError);
    expect(() => readPublicKeys(files.privateFile)).toThrow(/is not a public key set/);
    writeFileSync(join(dir, 'junk.json'), 'not json');
    expect(() => readPrivateKey(join(dir, 'junk.json'))).toThrow(/is not JSON/);
    expect(() => readPrivateKey(join(dir, 'missing.json'))).toThrow(/cannot read .*ENOENT/);
  });
});

describe('npm run policy -- push --sign: versions', () => {
  let dir: string;
  let fx: Fixture;
  let server: Server;
  let keys: { privateFile: string; publicFile: string; kid: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-push-sign-'));
    fx = await makeFixture();
    server = await listen(fx.app, 0, '127.0.0.1');
    keys = await writeKeyPair(join(dir, 'signing'), 'Ed25519');
    cpSync(join(policiesDir, 'rbac'), join(dir, 'rbac'), { recursive: true });
    // docs/guide/05-policy-lifecycle.md's "Rolling back" example: a copy of the folder with one more line.
    cpSync(join(policiesDir, 'rbac'), join(dir, 'rbac-next'), { recursive: true });
    appendFileSync(join(dir, 'rbac-next', 'rbac.cedar'), '// next\n');
    cpSync(join(policiesDir, 'rbac'), join(dir, 'fresh'), { recursive: true });
    writeFileSync(join(dir, 'fresh', 'manifest.json'), JSON.stringify({ name: 'fresh' }));
  });
  afterAll(async () => {
    await close(server);
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `npm run policy -- <args>` as its own process, from source, with the demo tenant's admin credentials. */
  async function policy(...args: string[]): Promise<{ code: number; output: string }> {
    const env = {
      ...process.env,
      OUTPOST_DATA_DIR: dir,
      RELAY_URL: baseUrl(server),
      OUTPOST_TENANT_ID: fx.demo.tenant_id,
      OUTPOST_ADMIN_API_KEY: fx.demo.admin_api_key,
      LOG_LEVEL: 'silent',
    };
    try {
      const { stdout, stderr } = await run(process.execPath, [script, ...args], { env });
      return { code: 0, output: `${stdout}${stderr}` };
    } catch (err) {
      const failed = err as { code: number; stdout: string; stderr: string };
      return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
    }
  }
  const latest = () => fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac');
  /** Several processes a test: generous, for a busy machine. */
  const SLOW = 90_000;

  it('signs the next version each time, so pushing an older folder again is a rollback the control plane takes', async () => {
    expect(await policy('add-key', keys.publicFile)).toMatchObject({ code: 0 });
    const first = await policy('push', join(dir, 'rbac'), '--sign', keys.privateFile);
    expect(first).toEqual({ code: 0, output: expect.stringContaining('rbac: image already stored, tagged latest again, signed as version 1\n') });
    expect(await policy('push', join(dir, 'rbac-next'), '--sign', keys.privateFile)).toEqual({
      code: 0,
      output: expect.stringContaining('rbac: pushed new image, signed as version 2\n'),
    });
    expect(await latest()).toBe(readPolicyFolder(join(dir, 'rbac-next')).digest);
    expect(await policy('push', join(dir, 'rbac'), '--sign', keys.privateFile)).toEqual({
      code: 0,
      output: expect.stringContaining('rbac: image already stored, tagged latest again, signed as version 3\n'),
    });
    expect(await latest()).toBe(readPolicyFolder(join(dir, 'rbac')).digest);
    expect(await fx.store.images.signedVersion(fx.demo.tenant_id, 'rbac')).toBe(3);
    // A policy name never pushed (the control plane answers 404 unknown_policy): version 1.
    expect(await policy('push', join(dir, 'fresh'), '--sign', keys.privateFile)).toEqual({
      code: 0,
      output: expect.stringContaining('fresh: pushed new image, signed as version 1\n'),
    });
  }, SLOW);

  it('--version signs the version given; one not above the highest is refused with the way to roll back', async () => {
    const refused = await policy('push', join(dir, 'rbac-next'), '--sign', keys.privateFile, '--version', '2');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('policy push: 409 stale_signature: the signature is for version 2 of policy rbac, and version 3 was pushed already');
    expect(await policy('push', join(dir, 'rbac-next'), '--sign', keys.privateFile, '--version', '7')).toEqual({
      code: 0,
      output: expect.stringContaining('signed as version 7\n'),
    });
    expect(await fx.store.images.signedVersion(fx.demo.tenant_id, 'rbac')).toBe(7);
  }, SLOW);

  it('refuses --version without --sign, and a version that is not a whole number from 1, before any request', async () => {
    const unsigned = await policy('push', join(dir, 'rbac'), '--version', '9');
    expect(unsigned).toEqual({ code: 1, output: expect.stringContaining('policy push: --version needs --sign: the version is part of the signature') });
    for (const bad of ['0', '-1', '1.5', 'x', '9007199254740992']) expect(() => parseSignedVersion(bad)).toThrow(ScriptError);
    expect(parseSignedVersion('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    const zero = await policy('push', join(dir, 'rbac'), '--sign', keys.privateFile, '--version', '0');
    expect(zero).toEqual({ code: 1, output: expect.stringContaining('policy push: 0 is not a version (a whole number from 1 to 9007199254740991)') });
    expect(await fx.store.images.signedVersion(fx.demo.tenant_id, 'rbac')).toBe(7);
  }, SLOW);

  it('remove-key takes a key id that begins with "-" as the id, and still answers --help without acting', async () => {
    let dashed = await writeKeyPair(join(dir, 'dashed-0'), 'Ed25519');
    for (let i = 1; !dashed.kid.startsWith('-'); i++) dashed = await writeKeyPair(join(dir, `dashed-${i}`), 'Ed25519');
    expect(await policy('add-key', dashed.publicFile)).toMatchObject({ code: 0 });
    const help = await policy('remove-key', '--help');
    expect(help).toEqual({ code: 0, output: expect.stringContaining('remove a registered signing key') });
    expect((await createSigningKeyRepository(fx.store.sql).list(fx.demo.tenant_id)).map((k) => k.kid)).toContain(dashed.kid);
    expect(await policy('remove-key', dashed.kid)).toEqual({ code: 0, output: expect.stringContaining(`${dashed.kid}: removed\n`) });
    expect((await createSigningKeyRepository(fx.store.sql).list(fx.demo.tenant_id)).map((k) => k.kid)).toEqual([keys.kid]);
    const junk = await policy('remove-key', '--not-a-key');
    expect(junk.code).toBe(1);
    expect(junk.output).toContain('policy remove-key: 400');
  }, SLOW);
});
