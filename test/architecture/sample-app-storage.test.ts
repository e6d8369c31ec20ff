import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');

/**
 * The storage drivers a fresh Node process has loaded after requiring `modules` (paths from
 * the project root), as `pg` / `better-sqlite3`, each named once. A real process, not Jest's
 * module registry: what `npm run app:rbac` would load.
 */
async function driversLoadedBy(modules: readonly string[]): Promise<string[]> {
  const probe = [
    `for (const m of ${JSON.stringify(modules)}) require(m);`,
    `const found = Object.keys(require.cache).map((f) => /node_modules[\\\\/](pg|better-sqlite3)[\\\\/]/.exec(f)?.[1]).filter(Boolean);`,
    'console.log(JSON.stringify([...new Set(found)].sort()));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', probe], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout) as string[];
}

describe('the foundation knows no storage (docs/architecture.md, "Layers")', () => {
  it('lets the RBAC sample app and what its main.ts wires (embedded edge, config, logger) load neither pg nor better-sqlite3', async () => {
    expect(await driversLoadedBy(['./src/apps/rbac', './src/apps/app-dependencies', './src/config', './src/http', './src/observability'])).toEqual([]);
  }, 30_000);

  it('sees a driver when one is loaded: src/sql loads both', async () => {
    expect(await driversLoadedBy(['./src/sql'])).toEqual(['better-sqlite3', 'pg']);
  }, 30_000);
});
