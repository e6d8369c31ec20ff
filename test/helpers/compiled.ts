import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The checkout's root. */
export const ROOT = join(__dirname, '..', '..');

/**
 * The compiled form of a source file under src/, scripts/ or a package's src/ (`scripts/tenants.ts` →
 * `<root>/dist/scripts/tenants.js`), or of a test fixture that runs as a process
 * (`test/stack/fixtures/stub-stack.ts` → `<root>/dist/test/stack/fixtures/stub-stack.js`), built
 * once per run by Jest's globalSetup (test/build-once.js): a child runs it with plain `node`, as
 * `npm start` and the npm scripts do.
 */
export function compiled(sourcePath: string): string {
  // A package's module: built into its own dist/ (tsconfig.build.json references the packages).
  const inPackage = /^packages\/([a-z-]+)\/src\/(.+)\.ts$/.exec(sourcePath);
  if (inPackage) return join(ROOT, 'packages', inPackage[1]!, 'dist', `${inPackage[2]!}.js`);
  const fixture = /^test\/(.+\/)?fixtures\/[^/]+\.ts$/.test(sourcePath);
  if (!fixture && !/^(src|scripts)\/.+\.ts$/.test(sourcePath)) throw new Error(`not a source file under src/ or scripts/, or a test fixture: ${sourcePath}`);
  const file = join(ROOT, 'dist', sourcePath.replace(/\.ts$/, '.js'));
  if (fixture && !existsSync(file)) throw new Error(`${sourcePath} is not compiled: list its folder in PROCESS_FIXTURES (test/build-once.js)`);
  return file;
}
