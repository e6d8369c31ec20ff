/**
 * Every command of the README, then of the guide, chapter after chapter, as a reader goes through
 * them in one clone, run verbatim in one session (test/docs/run-doc.ts): the stack on its default
 * ports in a network of its own, the README's allowed and denied DELETE, relay story and app of
 * one's own (notes), then, with that app beside the samples, tokens, policies and their tests,
 * another app of one's own (billing), the relay, a policy changed, dry-run, pushed, signed (every
 * app's, notes' and billing's too) and rolled back, and the stack on PostgreSQL and as a
 * three-node cluster. The guide skips nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docSteps } from './doc-blocks';
import { describeRun, runDocs } from './run-doc';

const GUIDE = join(__dirname, '..', '..', 'docs', 'guide');
const CHAPTERS = readdirSync(GUIDE)
  .filter((name) => /^\d\d-.*\.md$/.test(name))
  .sort()
  .map((name) => `docs/guide/${name}`);
/** The README runs first: the guide follows it in the same clone (its notes app included). */
const READING_ORDER = ['README.md', ...CHAPTERS];
const RUN_TIMEOUT_MS = 18 * 60_000;

describe('the guide', () => {
  it('has its six chapters, each with commands, none skipped', () => {
    expect(CHAPTERS.map((c) => c.replace(/^docs\/guide\/\d\d-|\.md$/g, ''))).toEqual([
      'tokens',
      'policies',
      'your-own-app',
      'relay-and-console',
      'policy-lifecycle',
      'more-than-one-node',
    ]);
    for (const chapter of CHAPTERS) {
      const steps = docSteps(readFileSync(join(GUIDE, '..', '..', chapter), 'utf8'), chapter);
      expect({ chapter, runs: steps.some((s) => s.kind === 'run'), skips: steps.filter((s) => s.kind === 'skip').length }).toEqual({ chapter, runs: true, skips: 0 });
    }
  });

  it(
    'runs every command of the README and then of the guide as written, in reading order, each printing what it says it prints',
    () => {
      const run = runDocs(READING_ORDER, { timeoutMs: RUN_TIMEOUT_MS });
      expect(describeRun(run)).toEqual([]);
      expect(run.status).toBe(0);
    },
    RUN_TIMEOUT_MS + 60_000,
  );
});
