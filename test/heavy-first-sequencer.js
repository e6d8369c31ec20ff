// Jest's test sequencer, with one change for a run that has no timings yet (a fresh clone, as CI
// runs): Jest then orders files by size, which put the two docs tests — small files that run the
// README and the guide for minutes — among the last, so one worker ran them alone at the end. The
// files below are started first, in this order; once Jest has timings of its own (its cache),
// its order, longest first, stands. Measured on 2026-11-28: the slowest files of `npm test`.
'use strict';
const Sequencer = require('@jest/test-sequencer').default;

const HEAVY_FIRST = [
  'test/docs/guide-commands.test.ts',
  'test/docs/readme-commands.test.ts',
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
