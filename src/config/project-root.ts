import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding Outpost's package.json, found by walking up from this file so
 * that the same code works from `src/` (ts-node, Jest) and from `dist/src/` (npm start).
 */
export function findProjectRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'policies'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the Outpost project root above ${start}`);
    dir = parent;
  }
}

/** Outpost's version from its package.json, which edges report to the relay. */
export function packageVersion(projectRoot: string): string {
  return (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
