import { join } from 'node:path';

/** The checkout's root. */
export const ROOT = join(__dirname, '..', '..');

/**
 * The compiled form of a source file under src/ or scripts/ (`scripts/tenants.ts` →
 * `<root>/dist/scripts/tenants.js`), built once per run by Jest's globalSetup
 * (test/build-once.js): a child runs it with plain `node`, as `npm start` and the npm scripts do.
 */
export function compiled(sourcePath: string): string {
  if (!/^(src|scripts)\/.+\.ts$/.test(sourcePath)) throw new Error(`not a source file under src/ or scripts/: ${sourcePath}`);
  return join(ROOT, 'dist', sourcePath.replace(/\.ts$/, '.js'));
}
