import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptError } from '../../scripts/lib/script-error';
import { keyPairFiles, readPrivateKey, readPublicKeys, writeKeyPair } from '../../scripts/lib/signing-key-files';
import { signImageDigest, signingKeyId, verifyImageSignature } from '../../src/policy';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

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
    await expect(verifyImageSignature(DIGEST, await signImageDigest(DIGEST, privateKey), publicKeys)).resolves.toBeUndefined();
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
