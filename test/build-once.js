// Jest's globalSetup: compiles src/ and scripts/ into dist/ once per run (nothing when dist/ is
// up to date), so tests that start a script or a component as a process of their own run the
// compiled JavaScript (test/helpers/compiled.ts) instead of compiling it again in every child
// through ts-node: ~0.3 s a start instead of ~3 s. npm test type-checks before this runs.
//
// Then the fixtures tests run as processes of their own (PROCESS_FIXTURES): each TypeScript file
// transpiled beside its place in dist/ (dist/test/…, so its imports of src/ reach dist/src/), each
// JavaScript file copied. Transpiled only: `tsc --noEmit` has already checked them with the tests.
'use strict';
const { spawnSync } = require('node:child_process');
const { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');
/** Folders of fixtures that tests start as processes (under the root). */
const PROCESS_FIXTURES = ['test/edge/fixtures', 'test/observability/fixtures', 'test/stack/fixtures'];
const TRANSPILE = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };

function compileFixtures(folder) {
  const out = join(ROOT, 'dist', folder);
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(join(ROOT, folder))) {
    const file = join(ROOT, folder, name);
    if (name.endsWith('.js')) copyFileSync(file, join(out, name));
    else if (name.endsWith('.ts')) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: TRANSPILE, fileName: file });
      writeFileSync(join(out, name.replace(/\.ts$/, '.js')), outputText);
    }
  }
}

module.exports = function buildOnce() {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.cjs')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status}): the tests that start processes run dist/`);
  for (const folder of PROCESS_FIXTURES) compileFixtures(folder);
};
