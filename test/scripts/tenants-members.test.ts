// `npm run tenants -- members` names each member — name and e-mail from the tenant's own
// directory, else from the directory seed the IdP's users come from — beside the user id that
// `remove-member` takes; a member neither knows stays an id, and says so.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { controlPlaneDbPath, createTenant, openControlPlaneStore } from '../../src/control-plane';
import { loadDirectorySeed } from '../../src/directory';
import { compiled } from '../helpers/compiled';

const run = promisify(execFile);
const script = compiled('scripts/tenants.ts');

describe('npm run tenants -- members', () => {
  let dataDir: string;
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('names each member from the tenant\'s directory, else from the seed, and keeps the id beside the name', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-tenants-members-'));
    const { directory } = loadDirectorySeed(loadConfig({}).directorySeedFile);
    const jerry = directory.users.find((u) => u.email === 'jerry@the-smiths.com')!;
    // A tenant whose own directory has one user, Ada; Jerry is only in the seed; u-nobody in neither.
    const store = await openControlPlaneStore(controlPlaneDbPath(dataDir));
    let tenantId: string;
    try {
      tenantId = await store.transaction(async (tx) => {
        const ada = { id: 'u-ada', email: 'ada@example.com', name: 'Ada Lovelace', roles: [] };
        const created = await createTenant(tx, { name: 'acme', directory: { roles: directory.roles, users: [ada], resources: [] }, kind: 'organization', owner: jerry.id });
        await tx.members.setMember(created.tenantId, 'u-ada', 'admin');
        await tx.members.setMember(created.tenantId, 'u-nobody', 'viewer');
        return created.tenantId;
      });
    } finally {
      await store.close();
    }

    const { DATABASE_URL: _unused, ...env } = process.env;
    const { stdout } = await run(process.execPath, [script, 'members', tenantId], { env: { ...env, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' } });
    const since = '\\(since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)';
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${tenantId}  organization`);
    expect(lines.slice(1).sort()).toEqual([
      expect.stringMatching(new RegExp(`^  \\(no name in the directory\\)  viewer  user id u-nobody  ${since}$`)),
      expect.stringMatching(new RegExp(`^  Ada Lovelace <ada@example.com>  admin  user id u-ada  ${since}$`)),
      expect.stringMatching(new RegExp(`^  Jerry Smith <jerry@the-smiths.com>  owner  user id ${jerry.id}  ${since}$`)),
    ]);
  });
});
