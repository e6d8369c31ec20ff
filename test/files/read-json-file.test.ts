import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileContentError, readJsonFile } from '../../src/files';

describe('readJsonFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the parsed value, or undefined when the file does not exist', () => {
    const file = join(dir, 'a.json');
    expect(readJsonFile(file)).toBeUndefined();
    writeFileSync(file, '{"a":[1]}');
    expect(readJsonFile(file)).toEqual({ a: [1] });
  });

  it.each([
    ['', 'empty'],
    ['  \n', 'empty'],
    ['{"a":1', 'not valid JSON (at position 6)'],
    ['{"d": "SECRETd", "e":', 'not valid JSON (ends too early)'],
    ['{"d": "SECRETd', 'not valid JSON (at position 14)'],
    ['{"d": SECRETd}', 'not valid JSON (syntax error)'],
  ])('names the file and never quotes the content: %j', (content, reason) => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, content);
    let thrown: unknown;
    try {
      readJsonFile(file);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(FileContentError);
    expect((thrown as Error).message).toBe(`${file}: ${reason}`);
    expect((thrown as Error).message).not.toContain('SECRET');
  });

  it('names the file when it cannot be read', () => {
    if (process.getuid?.() === 0) return expect(true).toBe(true); // root reads everything
    const file = join(dir, 'locked.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0);
    expect(() => readJsonFile(file)).toThrow(`${file}: cannot read (EACCES)`);
  });
});
