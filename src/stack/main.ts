// Starts the whole Outpost stack on loopback: one process per component, each once those it
// needs are healthy (components.ts), then prints a banner with what to try next.
//
//   npm start            # compiled (fast start)
//   npm run dev          # from source: restarts on a code change, pushes a saved policy folder
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../config';
import { banner } from './banner';
import { registrationCheck } from './check-registrations';
import { findPortConflicts } from './check-ports';
import { stackComponents } from './components';
import { entryFile } from './run-component';
import { runStack } from './run-stack';
import type * as StartPolicyWatch from './start-policy-watch';

async function main(options: { watchPolicies?: boolean }): Promise<void> {
  const config = loadConfig();
  const components = stackComponents(config).flatMap((component) => {
    const file = entryFile(component);
    return file ? [{ component, file }] : [];
  });
  // Nothing starts unless every port is free: a half-started second stack only misleads.
  const conflicts = await findPortConflicts(
    components.map((c) => c.component),
    config.host,
  );
  if (conflicts.length > 0) {
    for (const line of conflicts) console.error(line);
    process.exit(1);
  }
  const logDir = join(config.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  await runStack({
    components,
    host: config.host,
    logDir,
    // A component still working (CPU, log lines) is waited for up to this; a stuck one fails after 30 s.
    readyTimeoutMs: config.stackStartTimeout * 1000,
    readyWait: { timeoutSetting: 'STACK_START_TIMEOUT' },
    verify: registrationCheck(config),
    onReady: (started, edges) => {
      console.log(banner(config, started.map((r) => r.component), edges));
      // npm run dev: a saved policy folder is pushed as it is saved. Required only then: it loads
      // the control plane's modules and Cedar, ~0.5 s of CPU a plain start does not spend.
      if (options.watchPolicies) (require('./start-policy-watch') as typeof StartPolicyWatch).startPolicyWatch(config);
    },
  });
}

// --help prints this and exits before anything starts; an unknown option is an error.
const program = new Command()
  .name('npm start --')
  .description('start the whole stack on loopback, one process per component, each once those it needs are healthy; a component that dies is restarted; Ctrl-C stops it all')
  .showHelpAfterError('(--help for usage)')
  .option('--watch-policies', 'push a policy folder the edges serve as it is saved (npm run dev passes it)')
  .addHelpText('after', '\nExample:\n  OUTPOST_DATA_DIR=/tmp/outpost npm start   # every setting is an environment variable (.env.example lists them)')
  .parse();

main(program.opts<{ watchPolicies?: boolean }>()).catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
