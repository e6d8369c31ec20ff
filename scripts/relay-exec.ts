// docs/service-interface.md §4.2: send `discovery` or `sync_edge_directory` to one edge authorizer
// through the relay, and wait for the edge to confirm.
//
//   npm run relay-exec -- discovery --instance <instance-id>
//   npm run relay-exec -- sync_edge_directory --connection-id <connection-id>   # §4.3 lookup first
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_DISCOVERY_API_KEY, else <data dir>/demo-tenant.json;
// {relay_url} from RELAY_URL. Exit code 1 with one explaining line on any error status.
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../src/config';
import { COMMANDS, type CommandName } from '../src/relay-protocol';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { ScriptError } from './lib/script-error';
import { execRelayCommand, findInstanceId } from './lib/relay-client';
import { loadTenantCredentials } from './lib/tenant-credentials';

interface Options {
  instance?: string;
  connectionId?: string;
}

function commandName(value: string): CommandName {
  if (!(COMMANDS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${COMMANDS.join(' or ')}`);
  return value as CommandName;
}

async function main(command: CommandName, options: Options): Promise<void> {
  if ((options.instance === undefined) === (options.connectionId === undefined)) {
    throw new ScriptError('give exactly one of --instance <id> or --connection-id <id>');
  }
  const config = loadConfig();
  const creds = loadTenantCredentials(config, 'discovery');
  const instanceId = options.instance ?? (await findInstanceId(creds, options.connectionId as string));
  const started = Date.now();
  const answer = await execRelayCommand(creds, instanceId, command);
  console.log(`${answer.status} ${JSON.stringify(answer.body)}`);
  console.log(`${command} confirmed by instance ${instanceId} in ${Date.now() - started} ms`);
}

scriptCommand(
  'npm run relay-exec --',
  'send a command to an edge authorizer through the relay and wait for its answer (docs/service-interface.md §4.2)',
  'npm run relay-exec -- sync_edge_directory --connection-id <connection-id>',
)
  .argument('<command>', COMMANDS.join(' | '), commandName)
  .option('--instance <id>', 'instance id (see npm run find-instance)')
  .option('--connection-id <id>', 'edge connection id; its instance id is looked up first (§4.3)')
  .action((command: CommandName, options: Options) => runScript('relay-exec', () => main(command, options)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
