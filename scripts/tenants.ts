// Manages tenants directly in the control plane's database (<data dir>/control-plane.db, or
// the PostgreSQL database of DATABASE_URL); run it on the control-plane host. New secrets are printed once and never stored in
// plain text: copy them now. Every change is written to the tenant's audit log as the CLI's
// (actor tenants_cli), in the change's own transaction.
//
//   npm run tenants -- list
//   npm run tenants -- create acme
//   npm run tenants -- add-connection <tenant-id> --policy rbac --label 'billing sidecar'
//   npm run tenants -- rotate-key <tenant-id> discovery|admin
//   npm run tenants -- set-kind <tenant-id> personal|organization
//   npm run tenants -- members <tenant-id>
//   npm run tenants -- add-member <tenant-id> <user-id> --role owner|admin|viewer
//   npm run tenants -- remove-member <tenant-id> <user-id>
import { existsSync } from 'node:fs';
import { Argument, Option } from 'commander';
import { loadConfig } from '../src/config';
import {
  ACCOUNT_KINDS,
  MEMBER_ROLES,
  MembershipError,
  USER_ID_PATTERN,
  UnknownTenantError,
  connectionLabelSchema,
  controlPlaneLocation,
  createTenant,
  describeControlPlaneLocation,
  directoryNames,
  openControlPlaneStore,
  recordCliAudit,
  recordRotatedDemoKey,
  type AccountKind,
  type ControlPlaneStore,
  type MemberRole,
  type NameOf,
  type TenantKeyKind,
} from '../src/control-plane';
import { loadDirectorySeed } from '../src/directory';
import { POLICY_NAME_PATTERN } from '../src/decision-protocol';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { MissingStateError } from './lib/missing-state-error';
import { ScriptError } from './lib/script-error';

const SECRET_NOTE = 'Shown once: only hashes are stored. Keep these in a secret store.';

async function withStore<T>(work: (store: ControlPlaneStore, config: ReturnType<typeof loadConfig>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const location = controlPlaneLocation(config);
  // Creating the database here would stop the first start from seeding the demo tenant.
  // (A PostgreSQL database is made by its operator; the store only migrates it.)
  if (typeof location === 'string' && !existsSync(location)) {
    throw new MissingStateError(`${location} does not exist — start the control plane once (npm start) first`, config, 'control-plane');
  }
  if (typeof location !== 'string') console.error(`using PostgreSQL at ${describeControlPlaneLocation(location).database}`);
  const store = await openControlPlaneStore(location);
  try {
    return await work(store, config);
  } catch (err) {
    if (err instanceof UnknownTenantError || err instanceof MembershipError) throw new ScriptError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

async function list(): Promise<void> {
  return withStore(async (store) => {
    const tenants = await store.tenants.list();
    if (tenants.length === 0) console.log('no tenants');
    for (const t of tenants) {
      console.log(`${t.id}  ${t.name}  ${t.kind}  (created ${new Date(t.createdAt).toISOString()})`);
      for (const c of t.connections) console.log(`  connection ${c.connectionId}  policy ${c.policyName}${c.label === null ? '' : `  ${c.label}`}`);
    }
  });
}

function checkUserId(userId: string): void {
  if (!USER_ID_PATTERN.test(userId)) throw new ScriptError(`invalid user id ${JSON.stringify(userId)}: 1-128 printable characters, no spaces`);
}

async function create(name: string, options: { kind: AccountKind; owner?: string }): Promise<void> {
  if (options.owner !== undefined) checkUserId(options.owner);
  if (options.kind === 'personal' && options.owner === undefined) throw new ScriptError('a personal account needs --owner <user-id>');
  return withStore(async (store, config) => {
    // A new tenant gets the seed's roles (so grants work) but no users or resources.
    const { roles } = loadDirectorySeed(config.directorySeedFile).directory;
    const keys = await store.transaction(async (tx) => {
      const created = await createTenant(tx, {
        name,
        directory: { roles, users: [], resources: [] },
        kind: options.kind,
        ...(options.owner === undefined ? {} : { owner: options.owner }),
      });
      await recordCliAudit(tx.audit, created.tenantId, 'tenant.create', null);
      return created;
    });
    console.log(`tenant_id=${keys.tenantId}\ndiscovery_api_key=${keys.discoveryApiKey}\nadmin_api_key=${keys.adminApiKey}\n${SECRET_NOTE}`);
    console.log('Next: push a policy (OUTPOST_TENANT_ID/OUTPOST_ADMIN_API_KEY npm run policy -- push policies/rbac) and add a connection.');
  });
}

async function addConnection(tenantId: string, options: { policy: string; label?: string }): Promise<void> {
  if (!POLICY_NAME_PATTERN.test(options.policy)) throw new ScriptError(`invalid policy name ${options.policy}`);
  const label = options.label === undefined ? undefined : connectionLabelSchema.safeParse(options.label);
  if (label?.success === false) throw new ScriptError(`invalid --label: ${label.error.issues[0]!.message}`);
  return withStore(async (store) => {
    const conn = await store.transaction(async (tx) => {
      const added = await tx.tenants.addConnection(tenantId, options.policy, label?.data);
      await recordCliAudit(tx.audit, tenantId, 'connection.create', added.connectionId);
      return added;
    });
    console.log(`connection_id=${conn.connectionId}\nconnection_secret=${conn.connectionSecret}\n${SECRET_NOTE}`);
    console.log('Start an edge with EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET set to these.');
  });
}

async function rotateKey(tenantId: string, kind: TenantKeyKind): Promise<void> {
  return withStore(async (store, config) => {
    const demoTenantFile = { dataDir: config.dataDir, database: describeControlPlaneLocation(controlPlaneLocation(config)) };
    // One transaction: a demo tenant file that cannot be written keeps the old key working.
    const { key, file } = await store.transaction(async (tx) => {
      const rotated = await tx.tenants.rotateKey(tenantId, kind);
      await recordCliAudit(tx.audit, tenantId, `${kind}_key.rotate`, null);
      return { key: rotated, file: recordRotatedDemoKey(demoTenantFile, tenantId, kind, rotated) };
    });
    console.log(`${kind}_api_key=${key}\nThe old ${kind} key no longer works. ${SECRET_NOTE}`);
    if (file !== undefined) console.log(`${file} has the new key too: the scripts go on working.`);
  });
}

async function setKind(tenantId: string, kind: AccountKind): Promise<void> {
  return withStore(async (store) => {
    await store.transaction(async (tx) => {
      await tx.members.setKind(tenantId, kind);
      await recordCliAudit(tx.audit, tenantId, `tenant.kind.${kind}`, null);
    });
    console.log(`${tenantId} is now ${kind === 'personal' ? 'a personal account' : 'an organization'}`);
  });
}

/**
 * Who a member is, by name and e-mail: from the tenant's own directory, else from the directory
 * seed the IdP's users are made from (a new tenant's directory has no users yet); the CLI runs
 * for the operator, on the control plane's host, so it may read both. Null for neither.
 */
async function memberNames(store: ControlPlaneStore, config: ReturnType<typeof loadConfig>, tenantId: string): Promise<NameOf> {
  const own = directoryNames(await store.directory.snapshot(tenantId));
  let seed: NameOf = () => undefined;
  try {
    seed = directoryNames(loadDirectorySeed(config.directorySeedFile).directory);
  } catch {
    // No seed file: the tenant's own directory is all there is to go by.
  }
  return (userId) => own(userId) ?? seed(userId);
}

async function listMembers(tenantId: string): Promise<void> {
  return withStore(async (store, config) => {
    const kind = await store.members.kind(tenantId);
    const members = await store.members.members(tenantId);
    const nameOf = await memberNames(store, config, tenantId);
    console.log(`${tenantId}  ${kind}`);
    if (members.length === 0) console.log('  no members');
    for (const m of members) {
      const known = nameOf(m.userId);
      const who = known === undefined ? '(no name in the directory)' : `${known.name} <${known.email}>`;
      console.log(`  ${who}  ${m.role}  user id ${m.userId}  (since ${new Date(m.createdAt).toISOString()})`);
    }
  });
}

async function addMember(tenantId: string, userId: string, options: { role: MemberRole }): Promise<void> {
  checkUserId(userId);
  return withStore(async (store) => {
    const changed = await store.transaction(async (tx) => {
      const done = await tx.members.setMember(tenantId, userId, options.role);
      if (done) await recordCliAudit(tx.audit, tenantId, `member.set.${options.role}`, userId);
      return done;
    });
    console.log(changed ? `${userId} is now ${options.role} of ${tenantId}` : `${userId} already is ${options.role} of ${tenantId}`);
  });
}

async function removeMember(tenantId: string, userId: string): Promise<void> {
  return withStore(async (store) => {
    await store.transaction(async (tx) => {
      if (!(await tx.members.removeMember(tenantId, userId))) throw new ScriptError(`${userId} is not a member of ${tenantId}`);
      await recordCliAudit(tx.audit, tenantId, 'member.remove', userId);
    });
    console.log(`${userId} is no longer a member of ${tenantId}`);
  });
}

const program = scriptCommand(
  'npm run tenants --',
  "manage tenants in the control plane's database, on the control-plane host (<command> --help for each)",
  'npm run tenants -- create acme',
);
program.command('list').description('list tenants and their connections (no secrets)').action(() => runScript('tenants list', list));
program
  .command('create')
  .argument('<name>', 'display name')
  .addOption(new Option('--kind <kind>', 'personal | organization').choices(ACCOUNT_KINDS).default('organization'))
  .option('--owner <user-id>', 'IdP user id of its first owner (required for a personal account)')
  .description('create a tenant with a Discovery API key and an admin key')
  .action((name: string, options: { kind: AccountKind; owner?: string }) => runScript('tenants create', () => create(name, options)));
program
  .command('add-connection')
  .argument('<tenant-id>', 'tenant id')
  .option('--policy <name>', 'policy the edge serves', 'rbac')
  .option('--label <label>', 'what the connection serves, shown in the console (1-64 characters)')
  .description('create an edge connection (id + secret)')
  .action((tenantId: string, options: { policy: string; label?: string }) => runScript('tenants add-connection', () => addConnection(tenantId, options)));
program
  .command('rotate-key')
  .argument('<tenant-id>', 'tenant id')
  .addArgument(new Argument('<kind>', 'discovery | admin').choices(['discovery', 'admin']))
  .description('replace a key; the old one stops working at once')
  .action((tenantId: string, kind: TenantKeyKind) => runScript('tenants rotate-key', () => rotateKey(tenantId, kind)));
program
  .command('set-kind')
  .argument('<tenant-id>', 'tenant id')
  .addArgument(new Argument('<kind>', 'personal | organization').choices(ACCOUNT_KINDS))
  .description('make a tenant a personal account (exactly one member, its owner) or an organization')
  .action((tenantId: string, kind: AccountKind) => runScript('tenants set-kind', () => setKind(tenantId, kind)));
program
  .command('members')
  .argument('<tenant-id>', 'tenant id')
  .description("list a tenant's members by name and e-mail, with their roles and user ids")
  .action((tenantId: string) => runScript('tenants members', () => listMembers(tenantId)));
program
  .command('add-member')
  .argument('<tenant-id>', 'tenant id')
  .argument('<user-id>', "the user's IdP id (sub), as in the directory")
  .addOption(new Option('--role <role>', 'owner | admin | viewer').choices(MEMBER_ROLES).default('viewer'))
  .description("add a member, or change a member's role (an organization keeps at least one owner)")
  .action((tenantId: string, userId: string, options: { role: MemberRole }) => runScript('tenants add-member', () => addMember(tenantId, userId, options)));
program
  .command('remove-member')
  .argument('<tenant-id>', 'tenant id')
  .argument('<user-id>', "the member's IdP id")
  .description('remove a member (never the last owner, never a personal account\'s owner)')
  .action((tenantId: string, userId: string) => runScript('tenants remove-member', () => removeMember(tenantId, userId)));
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
