// Manages tenants directly in the control plane's database (<data dir>/control-plane.db);
// run it on the control-plane host. New secrets are printed once and never stored in
// plain text: copy them now.
//
//   npm run tenants -- list
//   npm run tenants -- create acme
//   npm run tenants -- add-connection <tenant-id> --policy rbac
//   npm run tenants -- rotate-key <tenant-id> discovery|admin
import { existsSync } from 'node:fs';
import { Argument, Command } from 'commander';
import { loadConfig } from '../src/config';
import {
  UnknownTenantError,
  controlPlaneDbPath,
  createTenant,
  openControlPlaneStore,
  type ControlPlaneStore,
  type TenantKeyKind,
} from '../src/control-plane';
import { loadDirectorySeed } from '../src/directory';
import { POLICY_NAME_PATTERN } from '../src/decision-protocol';
import { runScript } from './lib/run-script';
import { MissingStateError } from './lib/missing-state-error';
import { ScriptError } from './lib/script-error';

const SECRET_NOTE = 'Shown once: only hashes are stored. Keep these in a secret store.';

function withStore<T>(work: (store: ControlPlaneStore, config: ReturnType<typeof loadConfig>) => T): T {
  const config = loadConfig();
  const file = controlPlaneDbPath(config.dataDir);
  // Creating the database here would stop the first start from seeding the demo tenant.
  if (!existsSync(file)) throw new MissingStateError(`${file} does not exist — start the control plane once (npm start) first`, config, 'control-plane');
  const store = openControlPlaneStore(file);
  try {
    return work(store, config);
  } catch (err) {
    if (err instanceof UnknownTenantError) throw new ScriptError(err.message);
    throw err;
  } finally {
    store.close();
  }
}

function list(): void {
  withStore((store) => {
    const tenants = store.tenants.list();
    if (tenants.length === 0) console.log('no tenants');
    for (const t of tenants) {
      console.log(`${t.id}  ${t.name}  (created ${new Date(t.createdAt).toISOString()})`);
      for (const c of t.connections) console.log(`  connection ${c.connectionId}  policy ${c.policyName}`);
    }
  });
}

function create(name: string): void {
  withStore((store, config) => {
    // A new tenant gets the seed's roles (so grants work) but no users or resources.
    const { roles } = loadDirectorySeed(config.directorySeedFile).directory;
    const keys = createTenant(store, { name, directory: { roles, users: [], resources: [] } });
    console.log(`tenant_id=${keys.tenantId}\ndiscovery_api_key=${keys.discoveryApiKey}\nadmin_api_key=${keys.adminApiKey}\n${SECRET_NOTE}`);
    console.log('Next: push a policy (OUTPOST_TENANT_ID/OUTPOST_ADMIN_API_KEY npm run policy -- push policies/rbac) and add a connection.');
  });
}

function addConnection(tenantId: string, options: { policy: string }): void {
  if (!POLICY_NAME_PATTERN.test(options.policy)) throw new ScriptError(`invalid policy name ${options.policy}`);
  withStore((store) => {
    const conn = store.tenants.addConnection(tenantId, options.policy);
    console.log(`connection_id=${conn.connectionId}\nconnection_secret=${conn.connectionSecret}\n${SECRET_NOTE}`);
    console.log('Start an edge with EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET set to these.');
  });
}

function rotateKey(tenantId: string, kind: TenantKeyKind): void {
  withStore((store) => {
    const key = store.tenants.rotateKey(tenantId, kind);
    console.log(`${kind}_api_key=${key}\nThe old ${kind} key no longer works. ${SECRET_NOTE}`);
  });
}

const program = new Command().name('tenants').description("manage tenants in the control plane's database");
program.command('list').description('list tenants and their connections (no secrets)').action(() => runScript('tenants list', list));
program
  .command('create')
  .argument('<name>', 'display name')
  .description('create a tenant with a Discovery API key and an admin key')
  .action((name: string) => runScript('tenants create', () => create(name)));
program
  .command('add-connection')
  .argument('<tenant-id>', 'tenant id')
  .option('--policy <name>', 'policy the edge serves', 'rbac')
  .description('create an edge connection (id + secret)')
  .action((tenantId: string, options: { policy: string }) => runScript('tenants add-connection', () => addConnection(tenantId, options)));
program
  .command('rotate-key')
  .argument('<tenant-id>', 'tenant id')
  .addArgument(new Argument('<kind>', 'discovery | admin').choices(['discovery', 'admin']))
  .description('replace a key; the old one stops working at once')
  .action((tenantId: string, kind: TenantKeyKind) => runScript('tenants rotate-key', () => rotateKey(tenantId, kind)));
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
