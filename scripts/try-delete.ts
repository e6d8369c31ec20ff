// docs/service-interface.md §4.4, for every demo user: get an access token from the IdP, call
// DELETE {app_url}/resource/<name> with it, and show who was let through. Then the two
// classic mistakes: sending the ID token, and sending nothing.
//
//   npm run try-delete                 # resource "mega-seed"
//   npm run try-delete -- portal-gun
import { loadConfig } from '../src/config';
import { loadDirectorySeed } from '../src/directory';
import { fetchToken } from './lib/fetch-token';
import { deleteResource } from './lib/call-resource';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';

interface Row {
  caller: string;
  roles: string;
  status: string;
  body: string;
}

async function callDelete(url: string, authorization: string | undefined): Promise<{ status: string; body: string }> {
  const { status, body, challenge } = await deleteResource(url, authorization);
  return { status: String(status), body: challenge && status === 401 ? `${body}  [WWW-Authenticate: ${challenge}]` : body };
}

function printTable(rows: Row[]): void {
  const width = (key: keyof Row) => Math.max(key.length, ...rows.map((r) => r[key].length));
  const cols: (keyof Row)[] = ['caller', 'roles', 'status'];
  const line = (r: Row) => `${cols.map((c) => r[c].padEnd(width(c))).join('  ')}  ${r.body}`;
  console.log(line({ caller: 'caller', roles: 'roles', status: 'status', body: 'body' }));
  console.log(line({ caller: '-'.repeat(width('caller')), roles: '-'.repeat(width('roles')), status: '------', body: '----' }));
  for (const r of rows) console.log(line(r));
}

async function main(resource: string): Promise<void> {
  const config = loadConfig();
  const seed = loadDirectorySeed(config.directorySeedFile);
  const url = `${config.apps.rbacUrl}/resource/${encodeURIComponent(resource)}`;
  console.log(`DELETE ${url}\n`);

  const rows: Row[] = [];
  let idToken = '';
  for (const user of seed.directory.users) {
    const tokens = await fetchToken(config.idp.url, user.email, seed.demoPassword);
    idToken ||= tokens.id_token;
    const result = await callDelete(url, `Bearer ${tokens.access_token}`);
    rows.push({ caller: user.email, roles: user.roles.join(','), ...result });
  }
  rows.push({ caller: 'ID token (wrong token)', roles: '-', ...(await callDelete(url, `Bearer ${idToken}`)) });
  rows.push({ caller: 'no token', roles: '-', ...(await callDelete(url, undefined)) });
  printTable(rows);
  console.log('\nRoles shown are the seed directory\'s; the authorizer reads the live directory.');
}

scriptCommand(
  'npm run try-delete --',
  'DELETE {app_url}/resource/<name> as each demo user, with an ID token and with no token, and print who got through',
  'npm run try-delete -- portal-gun',
)
  .argument('[resource-name]', 'resource to delete', 'mega-seed')
  .action((resource: string) => runScript('try-delete', () => main(resource)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
