// The whole Outpost story against the running stack (`npm start` first):
//
//   1. the DELETE matrix: only Rick (admin) may DELETE;
//   2. grant Morty admin in the central directory — the app still says no;
//   3. `sync_edge_directory` through the relay — now the app says yes;
//   4. push a changed rbac policy (editors may DELETE) — nothing changes until…
//   5. `discovery` through the relay — the matrix changes;
//   6. put everything back as it was;
//   7. push on change: the same grant reaches the edge by itself, no command sent;
//   8. the decisions the demo caused, as the edge recorded them, with their reasons.
//
// Steps 1–6 run with the tenant's push on change off, so each shows what its command does;
// step 7 turns it on, and the tenant's own setting is put back at the end.
//
//   npm run demo
//
// URLs are the interface's placeholders: {auth_url} = AUTH_URL, {relay_url} = RELAY_URL,
// {app_url} = APP_URL. Credentials: OUTPOST_TENANT_ID + OUTPOST_ADMIN_API_KEY +
// OUTPOST_DISCOVERY_API_KEY, else <data dir>/demo-tenant.json. The commands go to the edge
// that answers the RBAC app: its embedded edge (AUTHORIZER=embedded, the default), else
// the sidecar.
import { join } from 'node:path';
import { appConnection, loadConfig, readDemoTenantFile, type Config } from '../src/config';
import { loadDirectorySeed } from '../src/directory';
import { createPolicyImage, readPolicyFolder } from '../src/policy';
import type { CommandName } from '../src/relay-protocol';
import { deleteResource } from './lib/call-resource';
import { callTenantApi } from './lib/call-tenant-api';
import { newestDecisionId, printDemoDecisions } from './lib/demo-decisions';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { fetchToken } from './lib/fetch-token';
import { letEditorsDelete } from './lib/let-editors-delete';
import { execRelayCommand, explainRelayError, findInstanceId } from './lib/relay-client';
import { ScriptError } from './lib/script-error';
import { loadTenantCredentials } from './lib/tenant-credentials';

const MORTY = 'morty@the-citadel.com';

function step(n: number, text: string): void {
  console.log(`\n${n}. ${text}`);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const admin = loadTenantCredentials(config, 'admin');
  const discovery = loadTenantCredentials(config, 'discovery');
  const connectionId = edgeOfTheApp(config);
  const seed = loadDirectorySeed(config.directorySeedFile);
  const resourceUrl = `${config.apps.rbacUrl}/resource/mega-seed`;

  const tokens = new Map<string, string>();
  for (const user of seed.directory.users) {
    tokens.set(user.email, (await fetchToken(config.idp.url, user.email, seed.demoPassword)).access_token);
  }
  let asked = 0;
  const deleteAs = async (email: string) => {
    asked += 1;
    return (await deleteResource(resourceUrl, `Bearer ${tokens.get(email)}`)).status;
  };
  const matrix = async () => {
    for (const user of seed.directory.users) {
      const status = await deleteAs(user.email);
      console.log(`   ${user.email.padEnd(24)} ${status === 200 ? '200 allowed' : `${status} denied`}`);
    }
  };
  const instanceId = await findInstanceId(discovery, connectionId);
  const firstRecord = await newestDecisionId(admin);
  const exec = async (command: CommandName) => {
    const started = performance.now();
    const answer = await execRelayCommand(discovery, instanceId, command);
    if (answer.status !== 200) throw new ScriptError(explainRelayError(answer, discovery, instanceId));
    console.log(`   POST {relay_url}/api/v2/management/control_plane/exec ${command} → ${answer.status} ${JSON.stringify(answer.body)} in ${Math.round(performance.now() - started)} ms`);
  };
  const setMortyAdmin = (grant: boolean) =>
    callTenantApi<{ revision: number }>(admin, {
      method: grant ? 'PUT' : 'DELETE',
      path: `/api/v2/admin/directory/users/${encodeURIComponent(MORTY)}/roles/admin`,
    });
  const pushRbac = (files: Record<string, string>) =>
    callTenantApi<{ digest: string }>(admin, { method: 'POST', path: '/api/v2/admin/policies/rbac', body: { files } });
  const setPushOnChange = (on: boolean) =>
    callTenantApi<{ push_on_change: boolean }>(admin, { method: 'PUT', path: '/api/v2/admin/settings', body: { push_on_change: on } });
  /** Asks the app every 50 ms until Morty gets `status`, for at most 5 s; the milliseconds it took. */
  const mortyBecomes = async (status: number): Promise<number> => {
    const started = performance.now();
    while ((await deleteAs(MORTY)) !== status) {
      if (performance.now() - started > 5000) throw new ScriptError(`Morty's DELETE did not become ${status} within 5 s; is push on change reaching the edge?`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return Math.round(performance.now() - started);
  };
  const pushing = (await callTenantApi<{ push_on_change: boolean }>(admin, { method: 'GET', path: '/api/v2/admin/settings' })).body.push_on_change;
  if (pushing) await setPushOnChange(false);
  try {
    await runStory({ instanceId, connectionId, resourceUrl, policiesDir: config.policiesDir, deleteAs, matrix, exec, setMortyAdmin, pushRbac });
    step(7, 'Push on change (docs/reference/api.md): a change reaches the edges by itself, no command sent.');
    await setPushOnChange(true);
    await setMortyAdmin(true);
    console.log(`   granted Morty admin again; Morty at the app: 200 after ${await mortyBecomes(200)} ms`);
    await setMortyAdmin(false);
    console.log(`   revoked it; Morty at the app: 403 after ${await mortyBecomes(403)} ms`);
  } finally {
    await setPushOnChange(pushing);
  }
  console.log(`\nPush on change is ${pushing ? 'on' : 'off'} for this tenant, as it was (PUT /api/v2/admin/settings turns it ${pushing ? 'off' : 'on'}).`);
  step(8, `The ${asked} decisions this demo caused, as the edge recorded them (GET /api/v2/admin/decisions; the console's Decisions view shows them live):`);
  await printDemoDecisions(admin, instanceId, firstRecord, asked);
}

/** Steps 1–6: every change made live by a relay command. */
async function runStory(deps: {
  instanceId: string;
  connectionId: string;
  resourceUrl: string;
  policiesDir: string;
  deleteAs: (email: string) => Promise<number>;
  matrix: () => Promise<void>;
  exec: (command: CommandName) => Promise<void>;
  setMortyAdmin: (grant: boolean) => Promise<{ body: { revision: number } }>;
  pushRbac: (files: Record<string, string>) => Promise<{ body: { digest: string } }>;
}): Promise<void> {
  const { instanceId, connectionId, resourceUrl, deleteAs, matrix, exec, setMortyAdmin, pushRbac } = deps;

  console.log(`Edge instance ${instanceId} (connection ${connectionId}); DELETE ${resourceUrl}`);
  step(1, 'The DELETE matrix under the rbac policy: only admins may DELETE.');
  await matrix();

  step(2, 'Grant Morty the admin role in the central directory (admin API).');
  const granted = await setMortyAdmin(true);
  console.log(`   directory revision ${granted.body.revision}; Morty at the app: ${await deleteAs(MORTY)} (its edge has not synced yet)`);

  step(3, 'Tell the app\'s edge to sync its directory now (relay command sync_edge_directory).');
  await exec('sync_edge_directory');
  console.log(`   Morty at the app: ${await deleteAs(MORTY)}`);

  step(4, 'Push a changed rbac policy: editors may DELETE too.');
  const original = readPolicyFolder(join(deps.policiesDir, 'rbac'));
  // The rule as its own file, and the policy's tests that say editors may not DELETE changed to match.
  const changed = createPolicyImage('rbac', letEditorsDelete(original.files));
  const pushed = await pushRbac(changed.files);
  console.log(`   new image ${pushed.body.digest}; Summer at the app: ${await deleteAs('summer@the-smiths.com')} (old image still active)`);

  step(5, 'Tell the app\'s edge to fetch the policy image now (relay command discovery). The matrix changes:');
  await exec('discovery');
  await matrix();

  step(6, 'Putting everything back: revoke Morty, push the original rbac policy, sync and discover.');
  await setMortyAdmin(false);
  await pushRbac(original.files);
  await exec('sync_edge_directory');
  await exec('discovery');
  await matrix();
}

/** The connection of the edge whose decisions the RBAC app serves. */
function edgeOfTheApp(config: Config): string {
  try {
    if (config.apps.authorizer === 'embedded') return appConnection(config, 'rbac').connectionId;
    return config.edge.connectionId ?? readDemoTenantFile(config.dataDir).connection_id;
  } catch (err) {
    throw new ScriptError(`no edge connection id (${(err as Error).message}); start the stack once (npm start) to write demo-tenant.json`);
  }
}

scriptCommand(
  'npm run demo --',
  'the Outpost story against the running stack (npm start first): the DELETE matrix, a directory grant and a policy push made live by relay commands, then everything put back',
  'npm run demo        # with npm start running in another terminal',
).parse();
void runScript('demo', main);
