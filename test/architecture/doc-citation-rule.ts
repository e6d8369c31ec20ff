import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

/** Extensions of the files whose text is checked; everything else (images, databases) is skipped. */
const TEXT_FILES = new Set(['.ts', '.js', '.mjs', '.cjs', '.json', '.md', '.html', '.css', '.sh']);

/** A path to one of the project's own documents, with the sections cited right after it. */
const DOC_CITATION = /docs\/((?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+\.md)((?:(?:,\s*|\s+|\s*[–-]\s*)§?\d+(?:\.\d+)*)*)/g;

/**
 * Citations of documents a clone of the repository does not have: the house-style and
 * architecture notes by their upper-case names (lower case is a folder: `test/architecture`),
 * and the service contract by its title. Paths under `docs/` are removed before these run.
 */
const STRAY_NAMES = /\bCONVENTIONS\b|\bARCHITECTURE\b/;
const STRAY_TITLE = /service[ -]interface/i;

/** One line of one file. */
export interface SourceLine {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Every line of every text file under `dirs` (relative to `root`), plus the given single files. */
export function readSourceLines(root: string, dirs: readonly string[], files: readonly string[] = []): SourceLine[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return TEXT_FILES.has(extname(entry.name)) ? [path] : [];
    });
  const paths = [...dirs.flatMap((dir) => walk(join(root, dir))), ...files.map((file) => join(root, file))];
  return paths.flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .map((text, i) => ({ file: relative(root, path), line: i + 1, text })),
  );
}

/** Lines that cite CONVENTIONS, ARCHITECTURE or the service interface other than by a `docs/` path. */
export function findStrayCitations(lines: readonly SourceLine[]): string[] {
  return lines
    .filter(({ text }) => {
      // A Markdown link's target is a path the docs test checks, not a citation by name.
      const rest = text.replace(/\]\([^)\s]*\)/g, '](…)').replace(DOC_CITATION, '');
      return STRAY_NAMES.test(rest) || STRAY_TITLE.test(rest);
    })
    .map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`);
}

/** The section numbers a document defines: headings such as `## §4` or `### §4.2 Title`. */
function sectionsOf(docPath: string): Set<string> {
  const headings = readFileSync(docPath, 'utf8').matchAll(/^#{1,6}\s+§(\d+(?:\.\d+)*)\b/gm);
  return new Set([...headings].map((m) => m[1]!));
}

/**
 * Citations of `docs/<file>.md` whose file does not exist under `root`, or whose cited
 * sections (`§4.2`, `§4.2–4.3`, `§4.2, §5`) are not headings of that file.
 */
export function findBrokenDocCitations(root: string, lines: readonly SourceLine[]): string[] {
  const problems: string[] = [];
  for (const { file, line, text } of lines) {
    for (const match of text.matchAll(DOC_CITATION)) {
      const [, name, tail = ''] = match;
      const docPath = join(root, 'docs', name!);
      if (!existsSync(docPath)) {
        problems.push(`${file}:${line}: docs/${name} does not exist`);
        continue;
      }
      if (!tail.includes('§')) continue;
      const defined = sectionsOf(docPath);
      for (const cited of tail.matchAll(/\d+(?:\.\d+)*/g)) {
        if (!defined.has(cited[0])) problems.push(`${file}:${line}: docs/${name} has no section §${cited[0]}`);
      }
    }
  }
  return problems;
}
