// Jest's globalSetup: compiles src/ and scripts/ into dist/ once per run (nothing when dist/ is
// up to date), so tests that start a script or a component as a process of its own run the
// compiled JavaScript (test/helpers/compiled.ts) instead of compiling it again in every child
// through ts-node: ~0.3 s a start instead of ~3 s. npm test type-checks before this runs.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = function buildOnce() {
  const build = spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'build.cjs')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status}): the tests that start processes run dist/`);
};
