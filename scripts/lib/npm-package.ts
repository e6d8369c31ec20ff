// The npm CLI, and packages from the npm registry unpacked outside the project: another Node
// for `npm run test:on-node` and `bench:stress -- --node N` (scripts/lib/node-runtime.ts), the
// Cerbos server for `npm run bench:peer` — binaries one platform's users need and nobody else
// should download with `npm ci`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The npm CLI this script was started by (`npm run` sets `npm_execpath`), else the one on PATH. */
function npmCli(): string {
  const fromNpm = process.env.npm_execpath;
  if (fromNpm && existsSync(fromNpm)) return fromNpm;
  const onPath = execFileSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).trim();
  if (!onPath) throw new Error('npm is not on PATH');
  return onPath;
}

/** Runs npm with `args` (on `options.node`, default this Node) and returns what it printed. */
export function npm(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string } = {}): string {
  return execFileSync(options.node ?? process.execPath, [npmCli(), ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/**
 * `name@version` from the registry, unpacked once under `<tmp>/<folder>/<version>/package`
 * (later calls find it there); returns that folder. Nothing is written in the project.
 */
export function unpackedPackage(name: string, version: string, folder: string, log: (line: string) => void): string {
  const home = join(tmpdir(), folder, version);
  const dir = join(home, 'package');
  // Written last: a fetch cut short is fetched again, never used half unpacked.
  const done = join(dir, '.outpost-unpacked');
  if (!existsSync(done)) {
    log(`fetching ${name}@${version} from the npm registry into ${home}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    const tarball = npm(['pack', `${name}@${version}`, '--pack-destination', home, '--silent']).trim().split('\n').at(-1) as string;
    execFileSync('tar', ['-xzf', join(home, tarball), '-C', home]);
    rmSync(join(home, tarball));
    writeFileSync(done, '');
  }
  return dir;
}
