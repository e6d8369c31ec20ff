import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openKeyStore, systemClock } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { compiled } from '../helpers/compiled';

const run = promisify(execFile);
const script = compiled('scripts/rotate-key.ts');

/** `npm run rotate-key` as its own process, from source, on `dataDir`. */
function rotateKey(dataDir: string): Promise<{ stdout: string }> {
  return run(process.execPath, [script], {
    env: { ...process.env, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  });
}

const newKid = (stdout: string) => /new kid:\s+(\S+)/.exec(stdout)?.[1];

describe('npm run rotate-key', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-rotate-'));
    file = join(dir, 'idp', 'keys.json');
    // The IdP's first start writes the first key; rotate-key refuses to run before it.
    await openKeyStore({ file, overlapSeconds: 3600, clock: systemClock, logger: silentLogger() });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('two runs at once both land: every new key is in keys.json, none lost', async () => {
    const results = await Promise.all([rotateKey(dir), rotateKey(dir)]);
    const kids = results.map((r) => newKid(r.stdout));
    const stored = (JSON.parse(readFileSync(file, 'utf8')) as { keys: { kid: string; retired_at?: number }[] }).keys;
    const storedKids = stored.map((k) => k.kid); // kids only: a failure must not print private keys
    // The first key plus one new key per run.
    expect(storedKids).toHaveLength(3);
    for (const kid of kids) expect(storedKids).toContain(kid);
    expect(stored.filter((k) => k.retired_at === undefined).map((k) => k.kid)).toEqual([storedKids[2]]);
  });

  it('replaces an empty keys.json (power loss) with a new key and says old tokens are refused', async () => {
    await rotateKey(dir);
    writeFileSync(file, '');
    const { stdout } = await rotateKey(dir);
    expect(stdout).toContain(`replaced an unreadable ${file} (empty) with a new signing key`);
    expect(stdout).toContain('tokens signed with the old keys will be refused');
    const stored = (JSON.parse(readFileSync(file, 'utf8')) as { keys: { kid: string }[] }).keys;
    expect(stored.map((k) => k.kid)).toEqual([newKid(stdout)]);
  });
});
