import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The checkout's root. */
export const ROOT = join(__dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** What the docs tests read: the README and every Markdown file under docs/. */
export function documentationFiles(): string[] {
  return [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
}
