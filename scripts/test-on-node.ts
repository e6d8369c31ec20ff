// Runs Jest on another Node.js, fetched from the npm registry into the temp folder:
//
//   npm run test:on-node -- 24 test/integration     # the integration suites on Node 24
//   npm run test:on-node -- 26                      # the whole unit and integration suite
//
// Everything after the version goes to Jest as it is, its options too (-t <name>, --runInBand),
// except -h/--help, which print this script's usage and run nothing; after a second `--` even
// those go to Jest (`npm run test:on-node -- 24 -- --help`). An option before the version is an error.
// The project is copied (without node_modules, .git, .data) to <tmp>/outpost-node/<version>/
// and its dependencies installed there by that Node (scripts/lib/node-runtime.ts), so the
// checkout's own node_modules never change. Exits with Jest's exit code.
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { findProjectRoot } from '../src/config';
import { prepareRuntime } from './lib/node-runtime';
import { scriptCommand } from './lib/script-command';

/** An option where the version belongs is a mistake, not a Jest option: those come after it. */
function nodeVersion(value: string): string {
  if (value.startsWith('-')) throw new InvalidArgumentError(`unknown option ${value}; Jest's options go after the version`);
  if (!/^\d+(\.\d+\.\d+)?$/.test(value)) throw new InvalidArgumentError('a major version such as 24, or an exact one such as 24.21.0');
  return value;
}

scriptCommand(
  'npm run test:on-node --',
  'Run Jest (with the given arguments) on another Node version, from a copy of the project in the temp folder.',
  'npm run test:on-node -- 24 test/integration --runInBand',
)
  .argument('<version>', 'a major version such as 24, or an exact one such as 24.21.0', nodeVersion)
  .argument('[jest-args...]', "passed to Jest as they are, options too (paths, -t <name>, --runInBand); -h/--help print this help (after a second -- they go to Jest too)")
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
