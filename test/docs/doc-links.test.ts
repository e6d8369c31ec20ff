/**
 * Every relative link of the README and docs/ leads somewhere: the file exists, and a `#anchor`
 * into a Markdown file names one of its headings (GitHub's slugs), so moving a section or a
 * chapter cannot leave a reader at a dead link.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { documentationFiles, ROOT } from './documentation-files';


/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

function brokenLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  const problems: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
    const [path = '', anchor] = target!.split('#');
    const resolved = path === '' ? file : join(dirname(file), path);
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(resolved)) problems.push(`${where}: no such file`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) problems.push(`${where}: no heading #${anchor}`);
  }
  return problems;
}

describe('links in the documentation', () => {
  const files = documentationFiles();

  it('all lead to a file that exists, and to a heading it has', () => {
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('are read from the README, the guide and the reference', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/guide/01-tokens.md', 'docs/reference/limits.md']));
    expect(slug('Three authorizer modes (`AUTHORIZER`)')).toBe('three-authorizer-modes-authorizer');
    expect(slug('§4.2 Send a command')).toBe('42-send-a-command');
  });

  it('are checked: a missing file and a missing heading are both reported, links in code blocks are not', () => {
    const page = join(ROOT, 'docs', 'guide', 'page.md');
    const markdown = ['[ok](01-tokens.md#two-tokens-one-credential) [web](https://example.com/x)', '[gone](02-gone.md) [moved](01-tokens.md#no-such-section)', '```', '[code](nowhere.md)', '```'].join('\n');
    expect(brokenLinks(page, markdown)).toEqual(['docs/guide/page.md: 02-gone.md: no such file', 'docs/guide/page.md: 01-tokens.md#no-such-section: no heading #no-such-section']);
  });
});

describe('the README', () => {
  it('is at most 250 lines: the rest is in docs/guide/ and docs/reference/', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(text.split('\n').length - (text.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(250);
  });
});
