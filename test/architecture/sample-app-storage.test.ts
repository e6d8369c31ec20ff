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

describe('the foundation knows no storage (docs/architecture.md, "Layers")', () => {
  it('lets the RBAC sample app and what its main.ts wires (embedded edge, config, logger) load neither pg nor better-sqlite3', async () => {
    expect(await driversLoadedBy(['./dist/src/apps/rbac', './dist/src/apps/app-dependencies', './dist/src/config', './dist/src/http', './dist/src/observability'])).toEqual([]);
  }, 30_000);

  it('sees a driver when one is loaded: src/sql (compiled) loads both', async () => {
    expect(await driversLoadedBy(['./dist/src/sql'])).toEqual(['better-sqlite3', 'pg']);
  }, 30_000);
});
