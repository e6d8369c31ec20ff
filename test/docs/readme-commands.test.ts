/**
 * The README's commands as a newcomer pastes them. They run verbatim, first in the one session
 * test/docs/guide-commands.test.ts runs (the README, then the guide in the same clone: the stack
 * started with `npm start` on its default ports in a network of its own, the allowed and the denied
 * DELETE, the relay story, an app of one's own, which the guide's chapters then run beside the
 * samples); here, what the README leaves out of that run.
 */
import { docSteps } from './doc-blocks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('the README', () => {
  const steps = docSteps(readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8'), 'README.md');

  it('skips only the two commands a test run cannot run from inside itself', () => {
    expect(steps.filter((s) => s.kind === 'skip').map((s) => ('code' in s ? s.code : ''))).toEqual(['npm ci', 'npm test']);
    expect(steps.filter((s) => s.kind === 'run').length).toBeGreaterThanOrEqual(5);
  });

  it('stops what it started before the guide begins (its first chapter starts the stack again)', () => {
    let running = 0;
    for (const step of steps) {
      if (step.kind === 'background') running += 1;
      if (step.kind === 'stop') running -= 1;
    }
    expect(running).toBe(0);
  });
});
