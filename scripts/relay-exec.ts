// docs/service-interface.md §4.2: send `discovery` or `sync_edge_directory` to one edge authorizer
// through the relay, and wait for the edge to confirm.
//
//   npm run relay-exec -- discovery --instance <instance-id>
//   npm run relay-exec -- sync_edge_directory --connection-id <connection-id>   # §4.3 lookup first
//   npm run relay-exec -- discovery --all [--policy <name>] [--stale-only]       # every edge of the tenant
//
// --all uses the broadcast beside §4.2 (docs/reference/api.md, "Broadcast") and exits 1 when an edge failed.
// Credentials: OUTPOST_TENANT_ID + OUTPOST_DISCOVERY_API_KEY, else <data dir>/demo-tenant.json;
// {relay_url} from RELAY_URL. Exit code 1 with one explaining line on any error status.
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../src/config';
import { COMMANDS, type CommandName } from '../src/relay-protocol';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { ScriptError } from './lib/script-error';
import { broadcastRelayCommand, execRelayCommand, findInstanceId } from './lib/relay-client';
import { loadTenantCredentials } from './lib/tenant-credentials';

interface Options {
  instance?: string;
  connectionId?: string;
  all?: boolean;
  policy?: string;
  staleOnly?: boolean;
}

function commandName(value: string): CommandName {
  if (!(COMMANDS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${COMMANDS.join(' or ')}`);
  return value as CommandName;
}

async function main(command: CommandName, options: Options): Promise<void> {
  const targets = [options.instance, options.connectionId, options.all].filter((given) => given !== undefined).length;
  if (targets !== 1) throw new ScriptError('give exactly one of --instance <id>, --connection-id <id> or --all');
  if (!options.all && (options.policy !== undefined || options.staleOnly)) throw new ScriptError('--policy and --stale-only go with --all');
  const config = loadConfig();
  const creds = loadTenantCredentials(config, 'discovery');
  if (options.all) {
    await broadcast(creds, command, options);
    return;
  }
  const instanceId = options.instance ?? (await findInstanceId(creds, options.connectionId as string));
  const started = Date.now();
  const answer = await execRelayCommand(creds, instanceId, command);
  console.log(`${answer.status} ${JSON.stringify(answer.body)}`);
  console.log(`${command} confirmed by instance ${instanceId} in ${Date.now() - started} ms`);
}

/** --all: one broadcast, its counts, then each failed edge on a line of its own. */
async function broadcast(creds: ReturnType<typeof loadTenantCredentials>, command: CommandName, options: Options): Promise<void> {
  const started = Date.now();
  const result = await broadcastRelayCommand(creds, command, { ...(options.policy === undefined ? {} : { policyName: options.policy }), staleOnly: options.staleOnly === true });
  console.log(JSON.stringify({ result }));
  console.log(`${command}: sent to ${result.sent}, confirmed by ${result.confirmed}, failed on ${result.failed.length}, ${result.not_connected} not connected, in ${Date.now() - started} ms`);
  for (const failed of result.failed) console.log(`  ${failed.id}: ${failed.code}`);
  if (result.failed.length > 0) throw new ScriptError(`${result.failed.length} edge(s) did not confirm ${command}`);
}

scriptCommand(
  'npm run relay-exec --',
  'send a command to an edge authorizer through the relay and wait for its answer (docs/service-interface.md §4.2), or with --all to every edge of the tenant (docs/reference/api.md, "Broadcast")',
  'npm run relay-exec -- sync_edge_directory --connection-id <connection-id>',
)
  .argument('<command>', COMMANDS.join(' | '), commandName)
  .option('--instance <id>', 'instance id (see npm run find-instance)')
  .option('--connection-id <id>', 'edge connection id; its instance id is looked up first (§4.3)')
  .option('--all', 'every connected edge of the tenant, on every node, in one broadcast')
  .option('--policy <name>', 'with --all: only edges serving this policy')
  .option('--stale-only', 'with --all: only edges whose policy or directory is behind')
  .action((command: CommandName, options: Options) => runScript('relay-exec', () => main(command, options)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
