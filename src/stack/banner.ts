import { join, relative } from 'node:path';
import { demoTenantPath, describePolicyFolderSync, POSTGRES_DATA_DIR, readDemoTenantFile, readPolicyFoldersReport, type Config, type DemoTenant } from '../config';
import { loadDirectorySeed } from '../directory';
import type { Component } from './components';
import { DEFAULT_RESTART_POLICY, windowText } from './restart-policy';

/** What a newcomer needs once the stack is up: URLs, demo users, next commands, and the edges found registered with the relay. */
export function banner(config: Config, started: readonly Component[], registeredEdges: readonly string[] = []): string {
  const seed = loadDirectorySeed(config.directorySeedFile);
  // Paths under the working directory are shown relative to it, others in full.
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return r === '' ? '.' : r.startsWith('..') ? p : r;
  };
  const names = new Set(started.map((c) => c.name));
  const lines = ['', 'Outpost is up. Everything below is for local demos only.', ''];
  for (const c of started) lines.push(`  ${c.label.padEnd(16)} ${c.url}`);
  if (names.has('control-plane')) {
    lines.push(`  ${'console'.padEnd(16)} ${config.controlPlane.consoleUrl}  (sign in as rick@the-citadel.com: tenant id, Discovery API key, instance ids, relay commands)`);
  }
  lines.push('', `Demo users (password for all: ${seed.demoPassword})`);
  for (const user of seed.directory.users) {
    lines.push(`  ${user.email.padEnd(24)} ${user.name.padEnd(14)} ${user.roles.join(', ')}`);
  }
  const tenantFile = demoTenantPath(config.dataDir);
  let tenant: DemoTenant | undefined;
  try {
    tenant = readDemoTenantFile(config.dataDir);
  } catch {
    tenant = undefined; // no demo tenant (credentials from the environment): nothing to show
  }
  if (tenant) {
    // The sidecar's, then each listed app's the file has (an app listed since the last control-plane start has none yet).
    const connections = [`sidecar ${tenant.connection_id}`];
    for (const app of config.apps.list) {
      const c = tenant.app_connections?.[app.connection];
      if (c) connections.push(`${app.label} ${c.connection_id}`);
    }
    lines.push(
      '',
      `Demo tenant     ${tenant.tenant_id}`,
      `  edge connections: ${connections.join(', ')}`,
      `  its keys (Discovery API key, admin key, connection secrets): ${rel(tenantFile)} (mode 0600)`,
      `  the apps decide with: ${config.apps.authorizer === 'embedded' ? 'an edge embedded in each app' : config.apps.authorizer === 'edge' ? 'the sidecar edge (RBAC app)' : 'policies/ and the seed directory (local)'}`,
    );
  }
  // Checked by the launcher before this banner: each is connected at the relay, so commands reach it.
  if (registeredEdges.length > 0) lines.push(`Registered with the relay: ${registeredEdges.join(', ')}`);
  // What this start's control plane did with policies/ (it writes the file before it answers, so it is this start's).
  const folders = names.has('control-plane') ? readPolicyFoldersReport(config.dataDir).flatMap((s) => describePolicyFolderSync(s) ?? []) : [];
  if (folders.length > 0) lines.push('', 'Policy folders (policies/ is the source of truth):', ...folders.map((line) => `  ${line}`), '');
  const { maxRestarts } = DEFAULT_RESTART_POLICY;
  lines.push(
    `State folder: ${rel(config.dataDir)}  ${dataDirNote(config, rel(config.dataDir))}`,
    `Logs: ${rel(join(config.dataDir, 'logs'))}/<component>.log`,
    `A component that dies is restarted (at most ${maxRestarts} times a ${windowText(DEFAULT_RESTART_POLICY)}) and reported here with its log.`,
    '',
    'Try next, in another terminal:',
  );
  if (names.has('rbac-app')) {
    lines.push('  npm run try-delete');
    lines.push(
      `  curl -i -X DELETE ${config.apps.rbacUrl}/resource/mega-seed \\`,
      '    -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)"',
    );
  } else {
    lines.push('  npm run -s token -- rick@the-citadel.com');
  }
  if (names.has('rbac-app') && config.apps.authorizer !== 'local') lines.push('  npm run demo');
  lines.push('', 'Stop with Ctrl+C.', '');
  return lines.join('\n');
}

/** Why this folder: a PostgreSQL stack keeps apart from the SQLite one, and the scripts must look in the same place. */
function dataDirNote(config: Config, shown: string): string {
  switch (config.dataDirSource) {
    case 'DATABASE_URL':
      return `(DATABASE_URL is set: this PostgreSQL stack's demo tenant, IdP keys and logs stay apart from the SQLite stack's; in another terminal set the same DATABASE_URL, or export OUTPOST_DATA_DIR=${shown}, before npm run …)`;
    case 'OUTPOST_DATA_DIR':
      return '(OUTPOST_DATA_DIR; the scripts need the same)';
    default:
      return `(the SQLite control plane's; started with DATABASE_URL the stack uses ${join(shown, POSTGRES_DATA_DIR)} instead)`;
  }
}
