/**
 * Every command of the README, run verbatim as a newcomer pastes it (test/docs/run-doc.ts): the
 * stack started with `npm start` in a copy of the checkout, on its default ports in a network
 * of its own, the allowed and the denied DELETE, the relay story, and an app of one's own.
 */
import { describeRun, runDocs } from './run-doc';
import { docSteps } from './doc-blocks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const RUN_TIMEOUT_MS = 8 * 60_000;

describe('the README', () => {
  it('skips only the two commands a test run cannot run from inside itself', () => {
    const steps = docSteps(readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8'), 'README.md');
    expect(steps.filter((s) => s.kind === 'skip').map((s) => ('code' in s ? s.code : ''))).toEqual(['npm ci', 'npm test']);
    expect(steps.filter((s) => s.kind === 'run').length).toBeGreaterThanOrEqual(5);
  });

  it(
    'runs every other command as written, each printing what the README says it prints',
    () => {
      const run = runDocs(['README.md'], { timeoutMs: RUN_TIMEOUT_MS });
      expect(describeRun(run)).toEqual([]);
      expect(run.status).toBe(0);
    },
    RUN_TIMEOUT_MS + 60_000,
  );
});
