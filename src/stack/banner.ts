import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Config } from '../config';
import { loadDirectorySeed } from '../directory';
import type { Component } from './components';

/** What a newcomer needs once the stack is up: URLs, demo users, next commands. */
export function banner(config: Config, started: readonly Component[]): string {
  const seed = loadDirectorySeed(config.directorySeedFile);
  // Paths under the working directory are shown relative to it, others in full.
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return r === '' ? '.' : r.startsWith('..') ? p : r;
  };
  const names = new Set(started.map((c) => c.name));
  const lines = ['', 'Outpost is up. Everything below is for local demos only.', ''];
  for (const c of started) lines.push(`  ${c.label.padEnd(16)} ${c.url}`);
  lines.push('', `Demo users (password for all: ${seed.demoPassword})`);
  for (const user of seed.directory.users) {
    lines.push(`  ${user.email.padEnd(24)} ${user.name.padEnd(14)} ${user.roles.join(', ')}`);
  }
  const tenantFile = join(config.dataDir, 'demo-tenant.json');
  if (existsSync(tenantFile)) {
    const tenant = JSON.parse(readFileSync(tenantFile, 'utf8')) as { tenant_id?: string; connection_id?: string };
    lines.push(
      '',
      `Demo tenant     ${tenant.tenant_id ?? '?'}   edge connection ${tenant.connection_id ?? '?'}`,
      `  its keys (Discovery API key, admin key, connection secret): ${rel(tenantFile)} (mode 0600)`,
    );
  }
  lines.push(`Logs: ${rel(join(config.dataDir, 'logs'))}/<component>.log`, '', 'Try next, in another terminal:');
  if (names.has('rbac-app')) {
    lines.push('  npm run try-delete');
    lines.push(
      `  curl -i -X DELETE ${config.apps.rbacUrl}/resource/mega-seed \\`,
      '    -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)"',
    );
  } else {
    lines.push('  npm run -s token -- rick@the-citadel.com');
  }
  if (names.has('edge')) lines.push('  npm run demo');
  lines.push('', 'Stop with Ctrl+C.', '');
  return lines.join('\n');
}
