// Runs Jest on another Node.js, fetched from the npm registry into the temp folder:
//
//   npm run test:on-node -- 24 test/integration     # the integration suites on Node 24
//   npm run test:on-node -- 26                      # the whole unit and integration suite
//
// The project is copied (without node_modules, .git, .data) to <tmp>/outpost-node/<version>/
// and its dependencies installed there by that Node (scripts/lib/node-runtime.ts), so the
// checkout's own node_modules never change. Exits with Jest's exit code.
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { Command } from 'commander';
import { findProjectRoot } from '../src/config';
import { prepareRuntime } from './lib/node-runtime';

new Command()
  .name('test:on-node')
  .description('Run Jest (with the given arguments) on another Node version, from a copy of the project in the temp folder.')
  .argument('<version>', 'a major version such as 24, or an exact one such as 24.21.0')
  .argument('[jest-args...]', 'passed to Jest as they are, e.g. test/integration')
  .allowUnknownOption()
  .action((version: string, jestArgs: string[]) => {
    const runtime = prepareRuntime(version, findProjectRoot(__dirname), (line) => console.log(line));
    console.log(`jest ${jestArgs.join(' ')} on Node ${runtime.version} in ${runtime.root}`);
    const run = spawnSync(runtime.nodeBin, [join(runtime.root, 'node_modules', 'jest', 'bin', 'jest.js'), ...jestArgs], {
      cwd: runtime.root,
      stdio: 'inherit',
      // Tests that start `node` by name get this Node too.
      env: { ...process.env, PATH: `${dirname(runtime.nodeBin)}${delimiter}${process.env.PATH ?? ''}` },
    });
    process.exitCode = run.status ?? 1;
  })
  .parse();
