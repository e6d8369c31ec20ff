import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { DEMO_TENANT_FILE, POSTGRES_DATA_DIR, readDemoTenantFile } from '../../src/config';
import type { TenantKeyKind } from '../../src/control-plane';
import { CREDENTIAL_ENV, type TenantCredentials } from './tenant-credentials';

const KEY_NAME = { discovery: 'Discovery API key', admin: 'admin key' } as const satisfies Record<TenantKeyKind, string>;

/** A path as the person typed it: relative to the working directory when it is below it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

/**
 * Other data folders next to this one that hold a demo tenant of their own (a PostgreSQL
 * stack's `<data>/postgres`, the cluster's `<data>/cluster`, or the folder above them): the
 * running stack may be one of those.
 */
function otherDemoTenants(dataDir: string, tenantId: string): { dir: string; tenantId: string }[] {
  const base = [POSTGRES_DATA_DIR, 'cluster'].includes(basename(dataDir)) ? dirname(dataDir) : dataDir;
  let children: string[];
  try {
    children = readdirSync(base, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(base, e.name));
  } catch {
    children = [];
  }
  const found: { dir: string; tenantId: string }[] = [];
  for (const dir of [base, ...children]) {
    if (dir === dataDir) continue;
    try {
      const other = readDemoTenantFile(dir).tenant_id;
      if (other !== tenantId) found.push({ dir, tenantId: other });
    } catch {
      // no demo tenant there
    }
  }
  return found;
}

/**
 * What to do when the control plane refuses a tenant's `kind` key (401): which key, read
 * from where, was refused, and the exact variables or folder that replace it. The scripts
 * read `demo-tenant.json` unless both `OUTPOST_TENANT_ID` and the key's variable are set,
 * so the advice always names both. Never the key itself.
 */
export function refusedKeyAdvice(creds: TenantCredentials, kind: TenantKeyKind): string {
  const keyVar = CREDENTIAL_ENV[kind];
  const tenantVar = CREDENTIAL_ENV.tenantId;
  if (creds.source === 'environment') {
    return (
      `${tenantVar} and ${keyVar} from the environment were refused by the control plane at ${creds.relayUrl}: they must be ` +
      `one tenant's id and its current ${KEY_NAME[kind]} (a rotation replaces it at once); or unset both to use ${DEMO_TENANT_FILE}.`
    );
  }
  const lines = [
    `tenant ${creds.tenantId} or its ${KEY_NAME[kind]} from ${shown(creds.source)} was refused by the control plane at ${creds.relayUrl}. ` +
      `A rotation by this control plane (console, npm run tenants) rewrites that file; for a key rotated elsewhere set both ` +
      `${tenantVar}=${creds.tenantId} and ${keyVar}=<the new key> (the file is used unless both are set)`,
  ];
  const others = basename(creds.source) === DEMO_TENANT_FILE ? otherDemoTenants(dirname(creds.source), creds.tenantId) : [];
  for (const other of others) {
    lines.push(
      `${shown(join(other.dir, DEMO_TENANT_FILE))} holds another demo tenant (${other.tenantId}); if the running stack is that one ` +
        `(a stack started with DATABASE_URL keeps its own in ${POSTGRES_DATA_DIR}/), export OUTPOST_DATA_DIR=${shown(other.dir)}`,
    );
  }
  if (lines.length === 1) {
    lines.push(
      `If the running stack is not the one that wrote the file (another DATABASE_URL or data folder), run the scripts with ` +
        `that stack's DATABASE_URL or OUTPOST_DATA_DIR`,
    );
  }
  return `${lines.join('. ')}.`;
}
