/**
 * The docs test's own parts: which blocks of a document are commands, what their `docs-test`
 * comments ask, and that a run catches a failing command, a missing output, a wrong exit status
 * and a background command that never gets ready — so a green docs test means the commands ran.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docSteps } from './doc-blocks';
import { describeRun, runSteps } from './run-doc';

const fence = '```';
const doc = (...parts: string[]) => parts.join('\n');

describe('docSteps', () => {
  it('takes every sh block in order, with its checks, and no other block', () => {
    const steps = docSteps(
      doc(
        'Start it:',
        '<!-- docs-test: background until "is up" -->',
        `${fence}sh`,
        'npm start',
        fence,
        `${fence}json`,
        '{"not": "run"}',
        fence,
        '<!-- docs-test: expect "200" "Hello" -->',
        `${fence}sh`,
        'curl -i localhost',
        '# 200',
        fence,
        '<!-- docs-test: exit 1 expect "FAIL" -->',
        `${fence}sh`,
        'npm run policy -- test x',
        fence,
        '<!-- docs-test: skip "installs packages" -->',
        `${fence}sh`,
        'npm ci',
        fence,
        '<!-- docs-test: stop -->',
        '  1. indented:',
        `  ${fence}sh`,
        '  echo nested',
        `  ${fence}`,
      ),
      'doc.md',
    );
    expect(steps).toEqual([
      { kind: 'background', file: 'doc.md', line: 3, until: 'is up', code: 'npm start' },
      { kind: 'run', file: 'doc.md', line: 10, expect: ['200', 'Hello'], exit: 0, code: 'curl -i localhost\n# 200' },
      { kind: 'run', file: 'doc.md', line: 15, expect: ['FAIL'], exit: 1, code: 'npm run policy -- test x' },
      { kind: 'skip', file: 'doc.md', line: 19, reason: 'installs packages', code: 'npm ci' },
      { kind: 'stop', file: 'doc.md', line: 22 },
      { kind: 'run', file: 'doc.md', line: 24, expect: [], exit: 0, code: 'echo nested' },
    ]);
  });

  it.each([
    ['a directive that is not above a fence', doc('<!-- docs-test: expect "x" -->', 'text', `${fence}sh`, 'ls', fence), 'doc.md:2: a docs-test directive must stand'],
    ['a directive above a block that is never run', doc('<!-- docs-test: expect "x" -->', `${fence}json`, '{}', fence), 'above a ```json block, which is never run'],
    ['commands in a bash block', doc(`${fence}bash`, 'ls', fence), 'commands are ```sh blocks'],
    ['an unknown directive', doc('<!-- docs-test: maybe -->', `${fence}sh`, 'ls', fence), 'unknown docs-test directive "maybe"'],
    ['a skip without a reason', doc('<!-- docs-test: skip -->', `${fence}sh`, 'ls', fence), 'skip needs a quoted reason'],
    ['a background block without its ready text', doc('<!-- docs-test: background -->', `${fence}sh`, 'ls', fence), 'background needs until'],
    ['a fence that never closes', doc(`${fence}sh`, 'ls'), 'doc.md:1: a fence that never closes'],
  ])('refuses %s', (_label, markdown, message) => {
    expect(() => docSteps(markdown, 'doc.md')).toThrow(message);
  });
});

describe('runSteps', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-docs-unit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (markdown: string) => runSteps(docSteps(markdown, 'doc.md'), dir, { timeoutMs: 60_000 });

  it('runs the blocks in one shell, a background command on its own loopback, and stops it at the end', () => {
    const result = run(
      doc(
        '<!-- docs-test: background until "listening" -->',
        `${fence}sh`,
        `node -e "require('http').createServer((q, s) => s.end('hi from ' + q.url)).listen(3001, () => console.log('listening'))"`,
        fence,
        '<!-- docs-test: expect "hi from /x" -->',
        `${fence}sh`,
        'X=/x',
        fence,
        '<!-- docs-test: expect "hi from /x" -->',
        `${fence}sh`,
        `node -e "fetch('http://localhost:3001$X').then((r) => r.text()).then(console.log)"`,
        fence,
        '<!-- docs-test: exit 3 expect "three" -->',
        `${fence}sh`,
        'echo three; exit 3',
        fence,
      ),
    );
    expect(result.status).toBe(0);
    expect(result.steps.map((s) => s.output !== undefined)).toEqual([true, true, true, true]);
    expect(result.steps[0]!.output).toContain('listening');
    expect(result.steps[2]!.output).toContain('hi from /x');
    // the second step printed nothing, so its expectation is the one the test must report
    expect(describeRun(result)).toEqual([expect.stringContaining('doc.md:6: the output does not hold "hi from /x"')]);
  });

  it('gives the commands a terminal-like output, which /dev/stderr can be opened on, and splits it by block even without a final newline', () => {
    const result = run(doc(`${fence}sh`, 'echo teed | tee /dev/stderr > /dev/null', 'printf no-newline', fence, `${fence}sh`, 'echo next', fence));
    expect(result.status).toBe(0);
    expect(result.steps.map((s) => s.output)).toEqual(['teed\nno-newline', 'next\n']);
  });

  it('stops at the first failing command and names it', () => {
    const result = run(doc(`${fence}sh`, 'echo one', fence, `${fence}sh`, 'echo two; false', fence, `${fence}sh`, 'echo three', fence));
    expect(result.status).not.toBe(0);
    expect(result.steps.map((s) => s.output)).toEqual(['one\n', 'two\n', undefined]);
    expect(describeRun(result)[0]).toMatch(/^doc\.md:4 failed/);
  });

  it('fails a command that exits otherwise than its comment says', () => {
    const result = run(doc('<!-- docs-test: exit 1 -->', `${fence}sh`, 'true', fence));
    expect(result.status).not.toBe(0);
    expect(result.steps[0]!.output).toContain('@@docs-test: exit status 0, not 1');
  });

  it('fails a background command that exits before it is ready, with its output', () => {
    const result = run(doc('<!-- docs-test: background until "up" -->', `${fence}sh`, 'echo port taken; exit 1', fence, `${fence}sh`, 'echo after', fence));
    expect(result.status).not.toBe(0);
    expect(result.steps[0]!.output).toContain('port taken');
    expect(result.steps[0]!.output).toContain('@@docs-test: it exited before printing "up"');
    expect(result.steps[1]!.output).toBeUndefined();
  });
});
