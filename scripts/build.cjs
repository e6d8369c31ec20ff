// `npm run build`, which `npm start` and the other scripts that build first run. A first build is
// ~20 s of silence, so this says what is happening before handing over to `tsc -b`, and says
// nothing when dist/ is already up to date. Plain JavaScript: it runs before anything is compiled.
'use strict';
const { spawnSync } = require('node:child_process');
const ts = require('typescript');

const PROJECT = 'tsconfig.build.json';

// The up-to-date check `tsc -b` itself makes (sources against dist/tsconfig.build.tsbuildinfo),
// through a host that reports nothing, so only tsc's own run below prints diagnostics.
const silent = () => {};
const host = ts.createSolutionBuilderHost(ts.sys, undefined, silent, silent);
if (ts.createSolutionBuilder(host, [PROJECT], {}).getNextInvalidatedProject() === undefined) process.exit(0);

console.error('Compiling TypeScript (up to 20 s the first time, a few seconds after)…');
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', PROJECT], { stdio: 'inherit' });
process.exit(tsc.status ?? 1);
