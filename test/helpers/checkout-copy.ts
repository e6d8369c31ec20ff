/**
 * A copy of the checkout in the temp folder, for tests that change files or run the stack on its
 * default paths: the files as git sees them (tracked, and new ones not ignored), node_modules
 * linked, and — when asked — the checkout's dist/ with every timestamp kept, so the copy's
 * `npm run build` compiles only what the checkout has not. The repository itself never changes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findProjectRoot } from '../../src/config';

export function copyCheckout(prefix: string, options: { dist?: boolean } = {}): string {
  const root = findProjectRoot();
  const copy = mkdtempSync(join(tmpdir(), prefix));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0')) {
    if (file === '' || !statSync(join(root, file), { throwIfNoEntry: false })?.isFile()) continue; // deleted in the checkout
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file), { preserveTimestamps: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  if (options.dist && existsSync(join(root, 'dist'))) cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true, preserveTimestamps: true });
  return copy;
}
