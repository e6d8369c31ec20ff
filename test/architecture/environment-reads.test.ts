/**
 * docs/conventions.md: only src/config reads the environment. Code anywhere else under src/
 * that names `process.env` fails here — an app scaffolded by `npm run new-app` included — so a
 * variable is always checked against the schema and listed in docs/reference/configuration.md.
 */
import { join } from 'node:path';
import { readSourceLines, type SourceLine } from './doc-citation-rule';

const ROOT = join(__dirname, '..', '..');
/** Hands the launcher's own environment to the processes it starts; it reads no variable. */
const PASSES_THROUGH = new Set(['src/stack/run-component.ts']);

function environmentReads(lines: readonly SourceLine[]): string[] {
  return lines
    .filter(({ file, text }) => /\bprocess\.env\b/.test(text) && !file.split('\\').join('/').startsWith('src/config/') && !PASSES_THROUGH.has(file.split('\\').join('/')))
    .map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`);
}

describe('reading the environment', () => {
  it('happens only in src/config', () => {
    expect(environmentReads(readSourceLines(ROOT, ['src']))).toEqual([]);
  });

  it('is found anywhere else, and src/config itself is scanned', () => {
    const lines = readSourceLines(ROOT, ['src']);
    expect(lines.some((l) => l.file.startsWith('src/config/') && /\bprocess\.env\b/.test(l.text))).toBe(true);
    expect(environmentReads([{ file: 'src/apps/billing/main.ts', line: 3, text: 'const port = Number(process.env.BILLING_PORT);' }])).toEqual([
      'src/apps/billing/main.ts:3: const port = Number(process.env.BILLING_PORT);',
    ]);
  });
});
