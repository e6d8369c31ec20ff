import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/compiled';
import { LAYERS } from './layer-rule';

/**
 * Every module file a fresh Node process has loaded after requiring `modules` (compiled, from
 * dist/: paths from the project root), symlinks resolved. A real process, not Jest's module
 * registry: what `npm run app:rbac` would load.
 */
async function filesLoadedBy(modules: readonly string[]): Promise<string[]> {
  const probe = [
    `for (const m of ${JSON.stringify(modules)}) require(m);`,
    `console.log(JSON.stringify(Object.keys(require.cache).map((f) => require('node:fs').realpathSync(f))));`,
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout) as string[];
}

/** The storage drivers loaded after requiring `modules`, as `pg` / `better-sqlite3`, each named once. */
async function driversLoadedBy(modules: readonly string[]): Promise<string[]> {
  const found = (await filesLoadedBy(modules)).map((f) => /node_modules[\\/](pg|better-sqlite3)[\\/]/.exec(f)?.[1]).filter((d) => d !== undefined);
  return [...new Set(found)].sort();
}

/**
 * The project's own modules loaded after requiring `modules`: each as its folder (`src/edge`,
 * `packages/express-authz`) and the line count of its TypeScript source.
 */
async function ownCodeLoadedBy(modules: readonly string[]): Promise<{ folders: string[]; lines: number }> {
  const own = (await filesLoadedBy(modules)).filter((f) => !f.includes('/node_modules/'));
  const sources = own.map((file) => {
    const source = /\/(?:dist\/(src\/.+)|(packages\/[a-z-]+\/)dist\/(.+))\.js$/.exec(file);
    if (!source) throw new Error(`not a compiled module of the project: ${file}`);
    return source[1] === undefined ? `${source[2]!}src/${source[3]!}.ts` : `${source[1]}.ts`;
  });
  const folders = [...new Set(sources.map((f) => f.split('/').slice(0, 2).join('/')))].sort();
  const lines = sources.reduce((sum, f) => sum + readFileSync(join(ROOT, f), 'utf8').split('\n').length, 0);
  return { folders, lines };
}

/** What the RBAC app's main.ts requires before it opens its authorizer (src/apps/rbac/main.ts). */
const RBAC_APP = ['./dist/src/apps/rbac', './dist/src/apps/app-dependencies', './dist/src/config', './dist/src/http', './dist/src/observability'];
/** What it requires then for `AUTHORIZER=embedded`, the default (src/apps/app-dependencies.ts). */
const EMBEDDED_EDGE = ['./dist/src/embedded-edge', './dist/src/edge', './dist/src/decision-records'];

/** Every platform area (the platform layer of LAYERS) and the other components, which the sample app loads none of. */
const PLATFORM_FOLDERS = [
  ...LAYERS[LAYERS.length - 2]!.map((folder) => `src/${folder}`), // the platform: the layer below the apps
  ...['src/control-plane', 'src/idp', 'src/interop', 'src/relay', 'src/sidecar', 'src/sql', 'src/stack'],
];

describe('the RBAC sample app stands apart from the platform (docs/architecture.md, "Layers")', () => {
  it('loads the packages and the sample, none of the platform, and at most 7,000 lines of its own code, on `local` or `edge`', async () => {
    const { folders, lines } = await ownCodeLoadedBy(RBAC_APP);
    expect(folders).toEqual(['packages/cedar-authorizer', 'packages/express-authz', 'src/apps', 'src/authorizer', 'src/cache', 'src/config', 'src/files', 'src/http', 'src/observability']);
    expect(lines).toBeLessThanOrEqual(7_000);
  }, 30_000);

  it('adds with its embedded edge the edge runtime and decision records only: no AuthZEN serving, sidecar, relay or control plane', async () => {
    const { folders } = await ownCodeLoadedBy([...RBAC_APP, ...EMBEDDED_EDGE]);
    expect(folders).toEqual(expect.arrayContaining(['src/edge', 'src/embedded-edge', 'src/decision-records']));
    expect(folders.filter((folder) => PLATFORM_FOLDERS.includes(folder))).toEqual(['src/decision-records']);
  }, 30_000);

  it('adds with pinned signing keys (EDGE_POLICY_SIGNING_KEYS) the edge side of signed images only, none of the control plane', async () => {
    const { folders } = await ownCodeLoadedBy([...RBAC_APP, ...EMBEDDED_EDGE, './dist/src/signed-images']);
    expect(folders.filter((folder) => PLATFORM_FOLDERS.includes(folder))).toEqual(['src/decision-records', 'src/signed-images']);
  }, 30_000);

  it('names every platform area among the folders it must not load', () => {
    expect(PLATFORM_FOLDERS).toEqual(expect.arrayContaining(['src/decision-records', 'src/edge-metrics', 'src/openapi', 'src/relay-broadcast', 'src/signed-images', 'src/console']));
  });

  it('sees a platform folder when one is loaded: the control plane (compiled) loads src/control-plane, src/relay and src/sql', async () => {
    expect((await ownCodeLoadedBy(['./dist/src/control-plane'])).folders).toEqual(expect.arrayContaining(['src/control-plane', 'src/relay', 'src/sql']));
  }, 30_000);
});

describe('the sidecar edge stands apart from the control plane', () => {
  it('loads no control plane, relay, SQL or OpenAPI area of the control plane', async () => {
    const { folders } = await ownCodeLoadedBy(['./dist/src/sidecar']);
    expect(folders).toEqual(expect.arrayContaining(['src/sidecar', 'src/edge', 'src/signed-images']));
    expect(folders.filter((folder) => ['src/control-plane', 'src/relay', 'src/sql', 'src/openapi', 'src/signing-keys', 'src/console'].includes(folder))).toEqual([]);
  }, 30_000);
});

describe('the foundation knows no storage (docs/architecture.md, "Layers")', () => {
  it('lets the RBAC sample app and what its main.ts wires (embedded edge, config, logger) load neither pg nor better-sqlite3', async () => {
    expect(await driversLoadedBy([...RBAC_APP, ...EMBEDDED_EDGE])).toEqual([]);
  }, 30_000);

  it('sees a driver when one is loaded: src/sql (compiled) loads better-sqlite3, and pg only once PostgreSQL is opened', async () => {
    expect(await driversLoadedBy(['./dist/src/sql'])).toEqual(['better-sqlite3']);
    expect(await driversLoadedBy(['./dist/src/sql', 'pg'])).toEqual(['better-sqlite3', 'pg']);
  }, 30_000);
});
