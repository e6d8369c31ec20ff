/**
 * The shell commands of a Markdown document, as a reader copies them: every fenced block whose
 * language is `sh`, in order, with what the docs test should check about it. A block's checks are
 * an HTML comment on the line just above its fence, which Markdown does not show:
 *
 *   <!-- docs-test: expect "200" "Hello from DELETE" -->   its output holds each text
 *   <!-- docs-test: exit 1 expect "FAIL" -->               it exits 1 (a failure the text shows)
 *   <!-- docs-test: background until "Outpost is up" -->   a long-running command (a terminal of
 *                                                          its own): started, and awaited until
 *                                                          its output holds the text; it runs on
 *                                                          beside the next blocks
 *   <!-- docs-test: skip "why" -->                         not run, with the reason; the tests
 *                                                          list every skipped command
 *
 * and a comment on a line of its own, `<!-- docs-test: stop -->`, is the reader's Ctrl-C on the
 * background command started last (and still running); the rest are stopped, newest first, at
 * the end of the run. Blocks in another language (`json`, `text`, none) are output or file
 * content, never run.
 */

export type DocStep =
  | { kind: 'run'; file: string; line: number; code: string; expect: string[]; exit: number }
  | { kind: 'background'; file: string; line: number; code: string; until: string }
  | { kind: 'skip'; file: string; line: number; code: string; reason: string }
  | { kind: 'stop'; file: string; line: number };

const DIRECTIVE = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;
const RUNNABLE = new Set(['sh']);
const SHELL_LIKE = new Set(['bash', 'shell', 'console', 'zsh']);

/** The quoted strings of a directive's tail: `"a" "b"` → ['a', 'b']. */
function quoted(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

function parseDirective(text: string, file: string, line: number): Omit<DocStep, 'code'> | { kind: 'stop'; file: string; line: number } {
  const [word = '', ...rest] = text.split(/\s+/);
  const tail = rest.join(' ');
  switch (word) {
    case 'stop':
      return { kind: 'stop', file, line };
    case 'skip': {
      const [reason] = quoted(tail);
      if (!reason) throw new Error(`${file}:${line}: docs-test: skip needs a quoted reason`);
      return { kind: 'skip', file, line, reason } as Omit<DocStep, 'code'>;
    }
    case 'background': {
      const match = /^until\s+(".*")$/.exec(tail);
      const [until] = match ? quoted(match[1]!) : [];
      if (!until) throw new Error(`${file}:${line}: docs-test: background needs until "<text it prints when ready>"`);
      return { kind: 'background', file, line, until } as Omit<DocStep, 'code'>;
    }
    case 'expect':
    case 'exit': {
      const exit = word === 'exit' ? Number(/^(\d+)/.exec(tail)?.[1] ?? NaN) : 0;
      if (!Number.isInteger(exit)) throw new Error(`${file}:${line}: docs-test: exit needs a status`);
      const expectAt = text.indexOf('expect');
      const expect = expectAt === -1 ? [] : quoted(text.slice(expectAt));
      if (expectAt !== -1 && expect.length === 0) throw new Error(`${file}:${line}: docs-test: expect needs quoted texts`);
      return { kind: 'run', file, line, expect, exit } as Omit<DocStep, 'code'>;
    }
    default:
      throw new Error(`${file}:${line}: unknown docs-test directive "${text}"`);
  }
}

/** The steps of `markdown` (read from `file`, named in errors), in document order. */
export function docSteps(markdown: string, file: string): DocStep[] {
  const lines = markdown.split('\n');
  const steps: DocStep[] = [];
  let pending: ReturnType<typeof parseDirective> | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const directive = DIRECTIVE.exec(text.trim());
    if (directive) {
      const parsed = parseDirective(directive[1]!, file, i + 1);
      if (parsed.kind === 'stop') steps.push(parsed as DocStep);
      else pending = parsed;
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
    if (!fence) {
      if (pending && text.trim() !== '') throw new Error(`${file}:${i + 1}: a docs-test directive must stand on the line just above a fence`);
      continue;
    }
    const [, indent = '', marker = '', language = ''] = fence;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(marker); i++) body.push(lines[i]!.startsWith(indent) ? lines[i]!.slice(indent.length) : lines[i]!);
    if (i === lines.length) throw new Error(`${file}:${start + 1}: a fence that never closes`);
    if (SHELL_LIKE.has(language)) throw new Error(`${file}:${start + 1}: commands are \`\`\`sh blocks (the docs test runs those), not \`\`\`${language}`);
    const directiveHere = pending;
    pending = undefined;
    if (!RUNNABLE.has(language)) {
      if (directiveHere) throw new Error(`${file}:${start}: a docs-test directive above a \`\`\`${language || 'plain'} block, which is never run`);
      continue;
    }
    const code = body.join('\n');
    const base = directiveHere ?? { kind: 'run', file, line: start + 1, expect: [], exit: 0 };
    steps.push({ ...base, file, line: start + 1, code } as DocStep);
  }
  return steps;
}
