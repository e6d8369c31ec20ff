// The module object itself (not a namespace copy), so spies reach what the code calls.
import fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/files';

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-files-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes owner-only (0600) in an owner-only folder whatever the umask', () => {
    const file = join(dir, 'nested', 'secret.json');
    const previous = process.umask(0);
    try {
      writeFileAtomic(file, '{"a":1}');
    } finally {
      process.umask(previous);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
  });

  it('narrows a file that was world-readable when it replaces it', () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeFileAtomic(file, 'new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('fsyncs the new content and the directory before and after the rename', () => {
    const calls: string[] = [];
    const fsync = jest.spyOn(fs, 'fsyncSync').mockImplementation(() => void calls.push('fsync'));
    const rename = jest.spyOn(fs, 'renameSync');
    rename.mockImplementation((from, to) => {
      calls.push('rename');
      rename.mockRestore();
      fs.renameSync(from, to);
    });
    writeFileAtomic(join(dir, 'f.json'), 'x');
    expect(fsync).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(['fsync', 'rename', 'fsync']);
  });

  it('leaves the old content and no temporary file when the write fails midway', () => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, 'old content');
    jest.spyOn(fs, 'fsyncSync').mockImplementation(() => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    expect(() => writeFileAtomic(file, 'new content')).toThrow('EIO');
    expect(readFileSync(file, 'utf8')).toBe('old content');
    expect(readdirSync(dir)).toEqual(['keys.json']);
  });
});
