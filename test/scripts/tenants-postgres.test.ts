import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { openControlPlaneStore } from '../../src/control-plane';
import { postgresServer } from '../helpers/sql-engines';
import { compiled } from '../helpers/compiled';

const run = promisify(execFile);
const script = compiled('scripts/tenants.ts');

/** A password no output may show; the throwaway server trusts every login, so it is never checked. */
const PASSWORD = 'pw-never-printed-7f3c';

interface Ran {
  readonly code: number;
  /** stdout and stderr together: everything an operator sees. */
  readonly output: string;
  readonly stdout: string;
}

/** `npm run tenants -- <args>` as its own process, from source, with `DATABASE_URL` set. */
async function tenants(databaseUrl: string, dataDir: string, ...args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    });
    return { code: 0, output: `${stdout}${stderr}`, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}`, stdout: failed.stdout };
  }
}

describe('npm run tenants with DATABASE_URL', () => {
  let dataDir: string;
  let databaseUrl: string;
  let missingDatabaseUrl: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-tenants-pg-'));
    const pg = await postgresServer();
    const admin = new Client({ connectionString: pg.urlFor('postgres') });
    await admin.connect();
    try {
      // An operator's usual setup: a login role with a password, owning the database.
      await admin.query(`CREATE ROLE tenants_cli LOGIN PASSWORD '${PASSWORD}'`);
      await admin.query('CREATE DATABASE tenants_cli OWNER tenants_cli');
    } finally {
      await admin.end();
    }
    const withPassword = (database: string) => {
      const url = new URL(pg.urlFor(database));
      url.username = 'tenants_cli';
      url.password = PASSWORD;
      return url.toString();
    };
    databaseUrl = withPassword('tenants_cli');
    missingDatabaseUrl = withPassword('no_such_database');
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a tenant that list shows and the store on the same URL sees, never printing the password', async () => {
    // No control-plane.db in the data directory: the PostgreSQL database is the store.
    const created = await tenants(databaseUrl, dataDir, 'create', 'acme');
    expect(created.code).toBe(0);
    const tenantId = /^tenant_id=(\S+)$/m.exec(created.stdout)?.[1];
    expect(tenantId).toBeDefined();
    expect(created.output).toContain('using PostgreSQL at postgres://tenants_cli:***@127.0.0.1:');

    const listed = await tenants(databaseUrl, dataDir, 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${tenantId}  acme  organization  \\(created `, 'm'));

    const store = await openControlPlaneStore({ databaseUrl });
    try {
      expect((await store.tenants.list()).map((t) => [t.id, t.name])).toEqual([[tenantId, 'acme']]);
    } finally {
      await store.close();
    }
    for (const ran of [created, listed]) expect(ran.output).not.toContain(PASSWORD);
  }, 60_000);

  it('fails on a database that does not exist, without printing the password', async () => {
    const failed = await tenants(missingDatabaseUrl, dataDir, 'list');
    expect(failed.code).not.toBe(0);
    expect(failed.output).toContain('no_such_database');
    expect(failed.output).not.toContain(PASSWORD);
  }, 60_000);
});
