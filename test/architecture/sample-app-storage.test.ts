import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/compiled';

/**
 * The storage drivers a fresh Node process has loaded after requiring `modules` (compiled, from
 * dist/: paths from the project root), as `pg` / `better-sqlite3`, each named once. A real
 * process, not Jest's module registry: what `npm run app:rbac` would load.
 */
async function driversLoadedBy(modules: readonly string[]): Promise<string[]> {
  const probe = [
    `for (const m of ${JSON.stringify(modules)}) require(m);`,
    `const found = Object.keys(require.cache).map((f) => /node_modules[\\\\/](pg|better-sqlite3)[\\\\/]/.exec(f)?.[1]).filter(Boolean);`,
    'console.log(JSON.stringify([...new Set(found)].sort()));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout) as string[];
}

/** The folders of the project's own code a fresh Node process has loaded after requiring `modules`, each named once. */
async function ownFoldersLoadedBy(modules: readonly string[]): Promise<string[]> {
  const probe = [
    `for (const m of ${JSON.stringify(modules)}) require(m);`,
    `const own = Object.keys(require.cache).map((f) => require('node:fs').realpathSync(f)).filter((f) => !f.includes('/node_modules/'));`,
    `console.log(JSON.stringify([...new Set(own.map((f) => /\\/(?:dist\\/(src\\/[a-z-]+)|(packages\\/[a-z-]+))\\//.exec(f)).filter(Boolean).map((m) => m[1] ?? m[2]))].sort()));`,
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout) as string[];
}

/** Platform areas in folders of their own, which the sample apps plug nothing of in. */
const PLATFORM_FOLDERS = ['src/cluster', 'src/control-plane', 'src/idp', 'src/interop', 'src/relay', 'src/sql', 'src/stack'];

describe('the RBAC sample app stands apart from the platform (docs/architecture.md, "Layers")', () => {
  it('loads the packages and none of the platform areas that are folders of their own', async () => {
    const loaded = await ownFoldersLoadedBy(['./dist/src/apps/rbac', './dist/src/apps/app-dependencies', './dist/src/config', './dist/src/http', './dist/src/observability']);
    expect(loaded).toEqual(expect.arrayContaining(['packages/cedar-authorizer', 'packages/express-authz', 'src/apps']));
    expect(loaded.filter((folder) => PLATFORM_FOLDERS.includes(folder))).toEqual([]);
  }, 30_000);

  it('sees a platform folder when one is loaded: the control plane (compiled) loads src/control-plane, src/relay and src/sql', async () => {
    expect(await ownFoldersLoadedBy(['./dist/src/control-plane'])).toEqual(expect.arrayContaining(['src/control-plane', 'src/relay', 'src/sql']));
  }, 30_000);
});

describe('the foundation knows no storage (docs/architecture.md, "Layers")', () => {
  it('lets the RBAC sample app and what its main.ts wires (embedded edge, config, logger) load neither pg nor better-sqlite3', async () => {
    expect(await driversLoadedBy(['./dist/src/apps/rbac', './dist/src/apps/app-dependencies', './dist/src/config', './dist/src/http', './dist/src/observability'])).toEqual([]);
  }, 30_000);

  it('sees a driver when one is loaded: src/sql (compiled) loads both', async () => {
    expect(await driversLoadedBy(['./dist/src/sql'])).toEqual(['better-sqlite3', 'pg']);
  }, 30_000);
});
