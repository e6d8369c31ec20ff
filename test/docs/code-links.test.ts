/**
 * Links from the documentation to a line of code — [`checkTokenShape`](../packages/express-authz/src/check-token-shape.ts#L64)
 * — still point at what they name: the line holds the link's code text. When code moves, the
 * failure says which link moved and where the name is now, so the page is fixed in one edit
 * rather than left to send readers to the wrong line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { documentationFiles, ROOT } from './documentation-files';

const PATH_PAGE = join(ROOT, 'docs', 'path-of-a-request.md');

/** Every `[`name`](file#Ln)` link of a page: the name it promises and the line it points at. */
export function codeLinks(markdown: string): { name: string; target: string; path: string; line: number }[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\[`([^`]+)`\]\(([^)\s#]+)#L(\d+)\)/g)]
    .filter(([, , path]) => !/^[a-z]+:/i.test(path!))
    .map(([, name, path, line]) => ({ name: name!, target: `${path}#L${line}`, path: path!, line: Number(line) }));
}

/** What is wrong with each code link of `file`: a missing file, or a line that no longer holds its name (and where it is now). */
export function movedLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const problems: string[] = [];
  for (const link of codeLinks(markdown)) {
    const where = `${relative(ROOT, file)}: [\`${link.name}\`](${link.target})`;
    const resolved = join(dirname(file), link.path);
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file ${relative(ROOT, resolved)}`);
      continue;
    }
    const lines = readFileSync(resolved, 'utf8').split('\n');
    if (lines[link.line - 1]?.includes(link.name)) continue;
    const now = lines.flatMap((text, i) => (text.includes(link.name) ? [i + 1] : []));
    const found =
      now.length === 0
        ? `${relative(ROOT, resolved)} no longer contains \`${link.name}\``
        : `\`${link.name}\` is now at ${now.map((n) => `#L${n}`).join(', ')} of ${relative(ROOT, resolved)}`;
    problems.push(`${where}: line ${link.line} is \`${(lines[link.line - 1] ?? '(past the end of the file)').trim()}\`; ${found}`);
  }
  return problems;
}

describe('links from the documentation to a line of code', () => {
  const files = documentationFiles();

  it('each point at a line that holds the name they show', () => {
    expect(files.flatMap((file) => movedLinks(file))).toEqual([]);
  });

  it('trace the path of one request in at most 60 lines, every step a code link', () => {
    const page = readFileSync(PATH_PAGE, 'utf8');
    expect(page.split('\n').length - (page.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(60);
    const targets = codeLinks(page).map((l) => l.path.replace(/^(\.\.\/)+/, ''));
    for (const step of [
      'src/apps/rbac/create-rbac-app.ts',
      'packages/express-authz/src/check-token-shape.ts',
      'packages/express-authz/src/require-permission.ts',
      'packages/cedar-authorizer/src/build-entities.ts',
      'packages/cedar-authorizer/src/compile-policy-image.ts',
      'policies/rbac/rbac.cedar',
    ]) {
      expect({ step, linked: targets.includes(step) }).toEqual({ step, linked: true });
    }
  });

  it('are checked: a moved name is reported with where it is now, a vanished one and a missing file too', () => {
    const page = PATH_PAGE; // the links below as if written there
    const shape = readFileSync(join(ROOT, 'packages', 'express-authz', 'src', 'check-token-shape.ts'), 'utf8').split('\n');
    const at = shape.findIndex((l) => l.includes('export function checkTokenShape')) + 1;
    const markdown = [
      `[\`checkTokenShape\`](../packages/express-authz/src/check-token-shape.ts#L${at})`,
      `[\`export function checkTokenShape\`](../packages/express-authz/src/check-token-shape.ts#L1)`,
      '[`noSuchSymbolAnywhere`](../packages/express-authz/src/check-token-shape.ts#L1)',
      '[`x`](../src/gone.ts#L3) [`web`](https://example.com/a.ts#L1)',
      '```',
      '[`inCode`](../src/gone.ts#L1)',
      '```',
    ].join('\n');
    expect(movedLinks(page, markdown)).toEqual([
      `docs/path-of-a-request.md: [\`export function checkTokenShape\`](../packages/express-authz/src/check-token-shape.ts#L1): line 1 is \`${shape[0]!.trim()}\`; \`export function checkTokenShape\` is now at #L${at} of packages/express-authz/src/check-token-shape.ts`,
      `docs/path-of-a-request.md: [\`noSuchSymbolAnywhere\`](../packages/express-authz/src/check-token-shape.ts#L1): line 1 is \`${shape[0]!.trim()}\`; packages/express-authz/src/check-token-shape.ts no longer contains \`noSuchSymbolAnywhere\``,
      'docs/path-of-a-request.md: [`x`](../src/gone.ts#L3): no such file src/gone.ts',
    ]);
  });
});
