// Jest's test sequencer, with one change for a run that has no timings yet (a fresh clone, as CI
// runs): Jest then orders files by size, which put the docs test — a small file that runs the
// README and the guide for minutes — among the last, so one worker ran it alone at the end. The
// files below are started first, in this order; once Jest has timings of its own (its cache),
// its order, longest first, stands. Measured on 2026-11-28: the slowest files of `npm test`.
'use strict';
const Sequencer = require('@jest/test-sequencer').default;

const HEAVY_FIRST = [
  'test/docs/guide-commands.test.ts',
  // Two apps scaffolded into a copy, and the suite's readers of apps.json and policies/ run there
  // (34 s alone on 2026-11-29, 280 s beside four other busy checkouts; the README now runs in the
  // guide's session, so its own file is no longer slow).
  'test/scripts/new-app-keeps-suite-green.test.ts',
  'test/scripts/cli-help.test.ts',
  'test/stack/run-stack.test.ts',
  'test/scripts/new-app.test.ts',
  'test/scripts/policy-signing-keys.test.ts',
  'test/control-plane/admin-directory-routes.test.ts',
  'test/edge/authzen-search-equivalence.test.ts',
];

class HeavyFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const at = HEAVY_FIRST.findIndex((file) => test.path.replace(/\\/g, '/').endsWith(file));
      return at === -1 ? HEAVY_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the rest keeps Jest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = HeavyFirstSequencer;
