/**
 * A copy of the checkout in the temp folder, for tests that change files or run the stack on its
 * default paths: the files as git sees them (tracked, and new ones not ignored), node_modules
 * linked, and — when asked — the checkout's dist/ with every timestamp kept, so the copy's
 * `npm run build` compiles only what the checkout has not. The repository itself never changes.
 * With `withoutUntrackedApps`, the apps scaffolded in the checkout and not committed are left out
 * (see removeUntrackedApps); `root` copies another checkout than this one (its test).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { APP_LIST_FILE, findProjectRoot, formatAppList, type AppListEntry } from '../../src/config';

export function copyCheckout(prefix: string, options: { dist?: boolean; withoutUntrackedApps?: boolean; root?: string } = {}): string {
  const root = options.root ?? findProjectRoot();
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
  if (options.withoutUntrackedApps) removeUntrackedApps(root, copy);
  return copy;
}

/**
 * Takes out of `copy` every app of its apps.json whose entry git does not track in `root` — an
 * app `npm run new-app` scaffolded there and not committed (the README's notes, the guide's
 * billing, once a reader has followed them) —: its line, `src/apps/<name>/`, and its policy folder
 * and test when git does not track them either. The copy is then the project as a clone has it,
 * for the docs, which scaffold those apps themselves.
 */
function removeUntrackedApps(root: string, copy: string): void {
  const tracked = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'utf8' });
  if (tracked.status !== 0) throw new Error(`git ls-files failed: ${tracked.stderr}`);
  const files = new Set(tracked.stdout.split('\0'));
  const list = JSON.parse(readFileSync(join(copy, APP_LIST_FILE), 'utf8')) as { $comment?: string; apps: AppListEntry[] };
  const untracked = list.apps.filter((app) => !files.has(`src/${app.entry}.ts`));
  if (untracked.length === 0) return;
  for (const app of untracked) {
    rmSync(join(copy, 'src', dirname(app.entry)), { recursive: true, force: true });
    if (!files.has(`policies/${app.policy}/manifest.json`)) rmSync(join(copy, 'policies', app.policy), { recursive: true, force: true });
    if (!files.has(`test/apps/${app.name}-app.test.ts`)) rmSync(join(copy, 'test', 'apps', `${app.name}-app.test.ts`), { force: true });
  }
  writeFileSync(join(copy, APP_LIST_FILE), formatAppList(list.$comment, list.apps.filter((app) => !untracked.includes(app))));
}
