// docs/service-interface.md §4.3 usage rule: list the tenant's instance registrations and print the
// instance id whose info.connection_id is the given connection id (stdout: just the id).
//
//   npm run -s find-instance -- <connection-id>
//   npm run relay-exec -- discovery --instance "$(npm run -s find-instance -- <connection-id>)"
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_DISCOVERY_API_KEY, else <data dir>/demo-tenant.json;
// {relay_url} from RELAY_URL.
import { loadConfig } from '../src/config';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { findInstanceId } from './lib/relay-client';
import { loadTenantCredentials } from './lib/tenant-credentials';

async function main(connectionId: string): Promise<void> {
  const config = loadConfig();
  const creds = loadTenantCredentials(config, 'discovery');
  console.log(await findInstanceId(creds, connectionId));
}

scriptCommand(
  'npm run -s find-instance --',
  'print the instance id registered for an edge connection id, nothing else (docs/service-interface.md §4.3)',
  'npm run relay-exec -- discovery --instance "$(npm run -s find-instance -- <connection-id>)"',
)
  .argument('<connection-id>', 'the edge connection id (demo-tenant.json: connection_id)')
  .action((connectionId: string) => runScript('find-instance', () => main(connectionId)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
