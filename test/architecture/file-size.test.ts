import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** The longest a source file may be: past it a file holds more than one thing to read (docs/conventions.md). */
const MAX_LINES = 200;

const ROOT = join(__dirname, '..', '..');

/** Every `.ts` file under `dir`, with its line count, longest first, as paths from `root`. */
function sourceFiles(dir: string, root = ROOT): { file: string; lines: number }[] {
  const found: { file: string; lines: number }[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) found.push({ file: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 });
    }
  };
  walk(dir);
  return found.sort((a, b) => b.lines - a.lines);
}

/** The files of `dirs` longer than {@link MAX_LINES}, as `<file>: <lines> lines`. */
function tooLong(dirs: readonly string[], root = ROOT): string[] {
  return dirs.flatMap((dir) => sourceFiles(dir, root)).filter((f) => f.lines > MAX_LINES).map((f) => `${f.file}: ${f.lines} lines`);
}

describe('source files', () => {
  const dirs = [join(ROOT, 'src'), ...readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'src'))];

  it(`are at most ${MAX_LINES} lines each, in src/ and every package's src/`, () => {
    expect(sourceFiles(join(ROOT, 'src')).length).toBeGreaterThan(100); // the walk found the tree
    expect(tooLong(dirs)).toEqual([]);
  });

  it('are measured: a file one line over is reported, one at the bound is not', () => {
    const root = mkdtempSync(join(tmpdir(), 'file-size-'));
    try {
      mkdirSync(join(root, 'src', 'deep'), { recursive: true });
      writeFileSync(join(root, 'src', 'deep', 'long.ts'), 'x;\n'.repeat(MAX_LINES + 1));
      writeFileSync(join(root, 'src', 'fits.ts'), 'x;\n'.repeat(MAX_LINES));
      writeFileSync(join(root, 'src', 'notes.md'), 'x\n'.repeat(MAX_LINES * 2));
      expect(tooLong([join(root, 'src')], root)).toEqual([`src/deep/long.ts: ${MAX_LINES + 1} lines`]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
