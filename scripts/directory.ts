// Edits the central directory through the control plane's admin API (admin key). Users
// may be named by e-mail or id. Each change bumps the directory revision; edges see it
// at their next sync, or now with `npm run relay-exec -- sync_edge_directory …`.
//
//   npm run directory -- show
//   npm run directory -- grant morty@the-citadel.com admin
//   npm run directory -- revoke morty@the-citadel.com admin
//   npm run directory -- relate mega-seed writer beth@the-smiths.com
//   npm run directory -- unrelate mega-seed writer beth@the-smiths.com
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_ADMIN_API_KEY, else <data dir>/demo-tenant.json.
import { loadConfig } from '../src/config';
import { effectiveRoles, type DirectoryData } from '../src/directory';
import { callTenantApi } from './lib/call-tenant-api';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { loadTenantCredentials } from './lib/tenant-credentials';

const BASE = '/api/v2/admin/directory';
const seg = encodeURIComponent;

const credentials = () => {
  const config = loadConfig();
  return loadTenantCredentials(config, 'admin');
};

async function change(method: 'PUT' | 'DELETE', path: string, done: string): Promise<void> {
  const res = await callTenantApi<{ revision: number }>(credentials(), { method, path: `${BASE}${path}` });
  console.log(`${done} (directory revision ${res.body.revision})`);
}

async function show(): Promise<void> {
  const { body: data } = await callTenantApi<DirectoryData>(credentials(), { method: 'GET', path: BASE });
  console.log(`directory revision ${data.revision}\n\nusers:`);
  for (const user of data.users) {
    console.log(`  ${user.email.padEnd(24)} ${user.roles.join(',').padEnd(20)} (effective: ${effectiveRoles(data, user.id).join(',')})  ${user.id}`);
  }
  const email = new Map(data.users.map((u) => [u.id, u.email]));
  console.log('\nresources:');
  for (const r of data.resources) {
    const rels = Object.entries(r.relations)
      .map(([rel, ids]) => `${rel}=${ids.map((id) => email.get(id) ?? id).join('|') || '-'}`)
      .join('  ');
    console.log(`  ${r.id.padEnd(16)} ${rels}`);
  }
}

const program = scriptCommand(
  'npm run directory --',
  "show or edit the tenant's central directory through the admin API (<command> --help for each)",
  'npm run directory -- grant morty@the-citadel.com admin',
);
program.command('show').description('print users, roles and resource relations').action(() => runScript('directory show', show));
program
  .command('grant')
  .argument('<user>', 'e-mail or user id')
  .argument('<role>', 'role id, e.g. admin')
  .description('give a user a role')
  .action((user: string, role: string) =>
    runScript('directory grant', () => change('PUT', `/users/${seg(user)}/roles/${seg(role)}`, `granted ${role} to ${user}`)),
  );
program
  .command('revoke')
  .argument('<user>', 'e-mail or user id')
  .argument('<role>', 'role id')
  .description('take a role from a user')
  .action((user: string, role: string) =>
    runScript('directory revoke', () => change('DELETE', `/users/${seg(user)}/roles/${seg(role)}`, `revoked ${role} from ${user}`)),
  );
program
  .command('relate')
  .argument('<resource>', 'resource id')
  .argument('<relation>', 'owner | writer | reader')
  .argument('<user>', 'e-mail or user id')
  .description('give a user a relation on a resource')
  .action((resource: string, relation: string, user: string) =>
    runScript('directory relate', () =>
      change('PUT', `/resources/${seg(resource)}/relations/${seg(relation)}/${seg(user)}`, `${user} is now ${relation} of ${resource}`),
    ),
  );
program
  .command('unrelate')
  .argument('<resource>', 'resource id')
  .argument('<relation>', 'owner | writer | reader')
  .argument('<user>', 'e-mail or user id')
  .description('remove a relation')
  .action((resource: string, relation: string, user: string) =>
    runScript('directory unrelate', () =>
      change('DELETE', `/resources/${seg(resource)}/relations/${seg(relation)}/${seg(user)}`, `${user} is no longer ${relation} of ${resource}`),
    ),
  );
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
