// An AuthZEN PDP for one of the OpenID AuthZEN working group's interop scenarios, on
// loopback, until Ctrl-C: point the WG's test runner (or curl) at the URL it prints.
//
//   npm run interop -- todo                 # http://localhost:8484
//   npm run interop -- todo --port 9000
//   npm run interop -- gateway              # the API-gateway scenario: {"type":"identity"} subjects, route resources
//   curl -s localhost:8484/access/v1/evaluation -H 'content-type: application/json' \
//     -d '{"subject":{"type":"user","id":"CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs"},
//          "action":{"name":"can_create_todo"},"resource":{"type":"todo","id":"todo-1"}}'
//
// It is the stack's own parts (src/interop/start-interop-pdp.ts): a control plane on SQLite in
// a temporary folder, the scenario's directory and policy folder, and an edge authorizer synced
// from it. Nothing outlives the command: SIGINT or SIGTERM stops it and removes the folder.
import { InvalidArgumentError } from 'commander';
import { createLogger } from '../src/observability';
import { findInteropScenario, INTEROP_SCENARIOS, startInteropPdp } from '../src/interop';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { ScriptError } from './lib/script-error';

/** The PDP's port unless `--port` says otherwise: free of every port `npm start` uses. */
const DEFAULT_PORT = 8484;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidArgumentError('a port number from 0 to 65535 (0 picks a free one)');
  return port;
}

async function main(name: string, port: number): Promise<void> {
  const scenario = findInteropScenario(name);
  if (!scenario) throw new ScriptError(`unknown scenario "${name}"; one of: ${INTEROP_SCENARIOS.map((s) => s.name).join(', ')}`);
  if (scenario.unavailable !== undefined) throw new ScriptError(`the ${scenario.name} scenario is not available yet: ${scenario.unavailable}`);
  const pdp = await startInteropPdp({ scenario, port, logger: createLogger('interop', 'warn') }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new ScriptError(`port ${port} is in use; choose another with --port`);
    throw err;
  });
  console.log(`AuthZEN PDP ready at ${pdp.url}`);
  console.log(`(${scenario.summary}; Ctrl-C stops it and removes ${pdp.dataDir})`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await pdp.close();
}

const scenarios = INTEROP_SCENARIOS.map((s) => `  ${s.name.padEnd(14)} ${s.summary}${s.unavailable === undefined ? '' : ' (not available yet)'}`).join('\n');

scriptCommand(
  'npm run interop --',
  'start an AuthZEN PDP on loopback for one OpenID AuthZEN interop scenario, loaded with its fixture, until Ctrl-C',
  'npm run interop -- todo --port 8484',
)
  .argument('<scenario>', `the scenario:\n${scenarios}`)
  .option('--port <n>', 'port on loopback (0 picks a free one)', parsePort, DEFAULT_PORT)
  .action((scenario: string, options: { port: number }) => runScript('interop', () => main(scenario, options.port)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
