// `npm run tenants` writes the database itself, not through an API: each change it makes lands
// in the tenant's audit log as the CLI's (actor tenants_cli), in the change's transaction, and
// a refused or empty change writes nothing. `add-connection --label` labels the connection.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { controlPlaneDbPath, openControlPlaneStore } from '../../src/control-plane';
import { compiled } from '../helpers/compiled';

const run = promisify(execFile);
const script = compiled('scripts/tenants.ts');

describe('npm run tenants in the audit log', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-tenants-audit-'));
    // As after the control plane's first start: the database exists.
    await (await openControlPlaneStore(controlPlaneDbPath(dataDir))).close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The CLI as its own process, from source, on the SQLite file of `dataDir`. */
  async function tenants(...args: string[]): Promise<{ code: number; stdout: string; output: string }> {
    const { DATABASE_URL: _unused, ...env } = process.env;
    try {
      const { stdout, stderr } = await run(process.execPath, [script, ...args], {
        env: { ...env, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      });
      return { code: 0, stdout, output: `${stdout}${stderr}` };
    } catch (err) {
      const failed = err as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, output: `${failed.stdout}${failed.stderr}` };
    }
  }

  /** The tenant's log, oldest first, as [action, target]; every entry must be the CLI's. */
  async function log(tenantId: string): Promise<(string | null)[][]> {
    const store = await openControlPlaneStore(controlPlaneDbPath(dataDir));
    try {
      return (await store.audit.list(tenantId)).reverse().map((e) => {
        expect({ actor: e.actor, actorKind: e.actorKind, outcome: e.outcome }).toEqual({ actor: 'tenants_cli', actorKind: 'cli', outcome: 'ok' });
        return [e.action, e.target];
      });
    } finally {
      await store.close();
    }
  }

  it('writes each change it makes as the CLI, and nothing for a refusal or no change', async () => {
    const created = await tenants('create', 'acme');
    expect(created.code).toBe(0);
    const tenantId = /^tenant_id=(\S+)$/m.exec(created.stdout)![1]!;

    const added = await tenants('add-connection', tenantId, '--policy', 'rbac', '--label', ' billing sidecar ');
    expect(added.code).toBe(0);
    const connectionId = /^connection_id=(\S+)$/m.exec(added.stdout)![1]!;
    expect((await tenants('list')).stdout).toContain(`  connection ${connectionId}  policy rbac  billing sidecar\n`);
    const badLabel = await tenants('add-connection', tenantId, '--label', 'x'.repeat(65));
    expect({ code: badLabel.code, output: badLabel.output.trim() }).toEqual({
      code: 1,
      output: expect.stringContaining('invalid --label: label must be at most 64 characters'),
    });

    expect((await tenants('rotate-key', tenantId, 'discovery')).code).toBe(0);
    expect((await tenants('add-member', tenantId, 'u-1', '--role', 'owner')).code).toBe(0);
    expect((await tenants('add-member', tenantId, 'u-1', '--role', 'owner')).output).toContain('already is owner'); // no change
    expect((await tenants('add-member', tenantId, 'u-2', '--role', 'admin')).code).toBe(0);
    expect((await tenants('remove-member', tenantId, 'u-1')).code).toBe(1); // u-2 is no owner: u-1 is the last one
    expect((await tenants('remove-member', tenantId, 'u-2')).code).toBe(0);
    expect((await tenants('set-kind', tenantId, 'personal')).code).toBe(0);

    expect(await log(tenantId)).toEqual([
      ['tenant.create', null],
      ['connection.create', connectionId],
      ['discovery_key.rotate', null],
      ['member.set.owner', 'u-1'],
      ['member.set.admin', 'u-2'],
      ['member.remove', 'u-2'],
      ['tenant.kind.personal', null],
    ]);
  }, 60_000);
});
