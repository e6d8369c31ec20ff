import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import {
  createPolicyImage,
  POLICY_IMAGE_LIMITS,
  PolicyImageError,
  PolicyImageTooLargeError,
  readPolicyFolder,
  verifyPolicyImage,
  type PolicyImage,
} from '../../src/policy';

const policiesDir = join(findProjectRoot(), 'policies');

describe('policy images', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'outpost-image-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('reads a policy folder: manifest, schema, *.cedar and tests/*.json (the shared directory fixture too) only, named by the manifest', () => {
    const dir = join(tmp, 'rebac');
    cpSync(join(policiesDir, 'rebac'), dir, { recursive: true });
    writeFileSync(join(dir, 'README.md'), 'not part of the image');
    writeFileSync(join(dir, 'tests', 'notes.txt'), 'not part of the image either');
    const image = readPolicyFolder(dir);
    expect(image.name).toBe('rebac');
    expect(Object.keys(image.files)).toEqual(['manifest.json', 'owner.cedar', 'reader.cedar', 'schema.cedarschema', 'tests/citadel-directory.json', 'tests/directory.json', 'tests/rebac.json', 'writer.cedar']);
    expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.isFrozen(image)).toBe(true);
    expect(Object.isFrozen(image.files)).toBe(true);
  });

  it('has a digest that is stable across reads and changes when one byte changes', () => {
    const dir = join(tmp, 'rbac');
    cpSync(join(policiesDir, 'rbac'), dir, { recursive: true });
    const first = readPolicyFolder(dir);
    expect(readPolicyFolder(dir).digest).toBe(first.digest);
    // Key order does not matter: the encoding sorts paths.
    const reversed = Object.fromEntries(Object.entries(first.files).reverse());
    expect(createPolicyImage('rbac', reversed).digest).toBe(first.digest);

    const text = first.files['rbac.cedar'] as string;
    writeFileSync(join(dir, 'rbac.cedar'), text.replace('GET', 'GEt'));
    expect(readPolicyFolder(dir).digest).not.toBe(first.digest);
    expect(createPolicyImage('rbac2', first.files).digest).not.toBe(first.digest);
  });

  it('cannot be forged by moving bytes between a path and its content', () => {
    const a = createPolicyImage('x', { 'a.cedar': 'bc' });
    const b = createPolicyImage('x', { 'a.cedarb': 'c' });
    expect(a.digest).not.toBe(b.digest);
  });

  describe('verifyPolicyImage', () => {
    const good = (): PolicyImage => readPolicyFolder(join(policiesDir, 'rbac'));
    const reject = (input: unknown, message: RegExp) => {
      expect(() => verifyPolicyImage(input)).toThrow(PolicyImageError);
      expect(() => verifyPolicyImage(input)).toThrow(message);
    };

    it('accepts an intact image (also after a JSON round trip)', () => {
      const image = good();
      expect(verifyPolicyImage(JSON.parse(JSON.stringify(image)))).toEqual(image);
    });

    it('rejects a tampered file or a tampered digest', () => {
      const image = good();
      reject({ ...image, files: { ...image.files, 'rbac.cedar': `${image.files['rbac.cedar']} ` } }, /digest mismatch: declared sha256:/);
      reject({ ...image, digest: `sha256:${'0'.repeat(64)}` }, /digest mismatch/);
      reject({ ...image, digest: 'md5:abc' }, /digest must be sha256:<64 lowercase hex>/);
    });

    it('rejects path traversal, absolute paths and foreign files', () => {
      const image = good();
      for (const path of ['../evil.cedar', 'a/../../evil.cedar', '/etc/passwd.cedar', 'a\\b.cedar', './x.cedar', 'a//b.cedar']) {
        const files = { ...image.files, [path]: 'permit(principal, action, resource);' };
        reject(createPolicyImage('rbac', files), /is not a safe relative path/);
      }
      reject(createPolicyImage('rbac', { ...image.files, 'run.sh': 'echo' }), /file "run.sh" is not allowed/);
    });

    it('rejects oversize files, images and file counts', () => {
      const image = good();
      const big = 'x'.repeat(POLICY_IMAGE_LIMITS.maxFileBytes + 1);
      expect(() => verifyPolicyImage(createPolicyImage('rbac', { ...image.files, 'big.cedar': big }))).toThrow(PolicyImageTooLargeError);
      reject(createPolicyImage('rbac', { ...image.files, 'big.cedar': big }), /big.cedar is 65537 bytes \(limit 65536\)/);
      const many: Record<string, string> = { ...image.files };
      for (let i = 0; i < 5; i++) many[`p${i}.cedar`] = 'y'.repeat(POLICY_IMAGE_LIMITS.maxFileBytes - 10);
      reject(createPolicyImage('rbac', many), /policy image is \d+ bytes \(limit 131072\)/);
      const count: Record<string, string> = { ...image.files };
      for (let i = 0; i < POLICY_IMAGE_LIMITS.maxFiles; i++) count[`p${i}.cedar`] = '';
      reject(createPolicyImage('rbac', count), /has 38 files \(limit 32\)/);
    });

    it('rejects malformed shapes, missing files and a name the manifest contradicts', () => {
      const image = good();
      reject(null, /malformed policy image/);
      reject({ ...image, name: '../rbac' }, /policy name must match/);
      reject({ ...image, files: { 'a.cedar': 1 } }, /malformed policy image/);
      const { 'schema.cedarschema': _schema, ...noSchema } = image.files;
      reject(createPolicyImage('rbac', noSchema), /has no schema.cedarschema/);
      reject(createPolicyImage('rbac', { 'manifest.json': '{}', 'schema.cedarschema': '' }), /has no \*\.cedar file/);
      reject(createPolicyImage('other', image.files), /image name "other" does not match manifest.json name "rbac"/);
      reject(createPolicyImage('rbac', { ...image.files, 'manifest.json': '{' }), /manifest.json is not valid JSON/);
    });
  });
});
