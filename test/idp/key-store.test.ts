import fs, { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileContentError } from '../../src/files';
import { openKeyStore, type KeyStore } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { fakeClock } from './idp-fixture';

let dir: string;
let file: string;
const clock = fakeClock();
const open = (extra: { onUnreadable?: (err: FileContentError) => void } = {}): Promise<KeyStore> =>
  openKeyStore({ file, overlapSeconds: 600, clock, logger: silentLogger(), ...extra });
const kidsOnDisk = () => (JSON.parse(readFileSync(file, 'utf8')) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-keys-'));
  file = join(dir, 'idp', 'keys.json');
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('key store file safety', () => {
  it('loses no key when two stores (an IdP and rotate-key) rotate at the same time', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const original = kidsOnDisk();
    expect(original).toHaveLength(1);
    const [kidA, kidB] = await Promise.all([a.rotate(), b.rotate()]);
    expect(kidsOnDisk().sort()).toEqual([...original, kidA, kidB].sort());
    expect(existsSync(`${file}.lock`)).toBe(false);
    // Exactly one active key, and both stores sign with the one written last.
    const last = kidsOnDisk().at(-1);
    expect((await a.signingKey()).kid).toBe(last);
    expect((await b.signingKey()).kid).toBe(last);
  });

  it('writes keys.json owner-only and fsyncs it before it counts as rotated', async () => {
    const keys = await open();
    const fsync = jest.spyOn(fs, 'fsyncSync');
    await keys.rotate();
    expect(fsync).toHaveBeenCalled();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['empty (a write cut by a power loss)', '', 'empty'],
    ['corrupt', '{"version":1,"keys":[{"kid":"k","d":"SECRET', 'not valid JSON (at position 43)'],
    ['not a key file', '{"version":1,"keys":[]}', 'not a valid key file (keys: Too small: expected array to have >=1 items)'],
  ])('refuses to open a keys.json that is %s, naming the file and the recovery', async (_what, content, reason) => {
    await open();
    writeFileSync(file, content);
    const error = await open().then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toBe(
      `${file}: ${reason}. The IdP cannot sign tokens without its keys. To recover, run \`npm run rotate-key\` ` +
        `(it replaces the file with a new key), or delete ${file} and start again to generate one; ` +
        'either way, tokens signed with the old keys will be refused and users must sign in again.',
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('replaces an unreadable keys.json with a new key when asked to (rotate-key does)', async () => {
    await open();
    writeFileSync(file, '');
    const told: FileContentError[] = [];
    const keys = await open({ onUnreadable: (err) => told.push(err) });
    expect(told.map((e) => [e.file, e.reason])).toEqual([[file, 'empty']]);
    expect(kidsOnDisk()).toEqual([(await keys.signingKey()).kid]);
  });
});
