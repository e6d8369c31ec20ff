import { closeSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPrivateFile, preparePrivateDatabase } from '../../src/files';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('owner-only files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-private-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a file 0600 in a 0700 folder and narrows an existing one', () => {
    const fresh = join(dir, 'logs', 'a.log');
    closeSync(openPrivateFile(fresh));
    expect(mode(fresh)).toBe(0o600);
    expect(mode(join(dir, 'logs'))).toBe(0o700);
    const old = join(dir, 'b.log');
    writeFileSync(old, 'kept', { mode: 0o644 });
    closeSync(openPrivateFile(old));
    expect(mode(old)).toBe(0o600);
  });

  it('narrows a database and its -wal/-shm companions, and skips :memory:', () => {
    const db = join(dir, 'x.db');
    for (const f of [db, `${db}-wal`, `${db}-shm`]) writeFileSync(f, '', { mode: 0o644 });
    preparePrivateDatabase(db);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) expect(mode(f)).toBe(0o600);
    expect(() => preparePrivateDatabase(':memory:')).not.toThrow();
  });
});
