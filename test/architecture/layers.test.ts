import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { collectFolderImports, findLayerViolations, findModuleCycles, findPackageEscapes, findUnusedIndexExports, importSpecifiers, LAYERS, topFolder, type FolderImport } from './layer-rule';

const SRC = join(__dirname, '..', '..', 'src');
const PACKAGES = ['express-authz', 'cedar-authorizer'].map((name) => join(__dirname, '..', '..', 'packages', name));

function imp(from: string, to: string, specifier = `../${to}`): FolderImport {
  return { file: `${from}/x.ts`, from, to, specifier };
}

describe('the layer rule', () => {
  it('holds for every import in src/', () => {
    expect(findLayerViolations(collectFolderImports(SRC))).toEqual([]);
  });

  it('gives every folder of src/ a layer', () => {
    const folders = new Set(collectFolderImports(SRC).flatMap((i) => [topFolder(i.from), topFolder(i.to)]));
    const placed = new Set(LAYERS.flat());
    expect([...folders].filter((f) => f !== '' && !placed.has(f))).toEqual([]);
  });

  it('finds the imports it checks (the scan is not empty)', () => {
    const imports = collectFolderImports(SRC);
    expect(imports.length).toBeGreaterThan(50);
    expect(imports).toContainEqual(expect.objectContaining({ from: 'apps', to: 'authorizer' }));
    expect(imports).toContainEqual(expect.objectContaining({ file: 'cluster/node-bus.ts', from: 'cluster', to: 'relay', specifier: '../relay' }));
  });

  it('reports an import of a higher layer', () => {
    expect(findLayerViolations([imp('policy', 'edge')])).toEqual(['policy/x.ts: policy (layer 2) imports edge (layer 3)']);
  });

  it('reports an import of a higher layer from a sub-folder', () => {
    expect(findLayerViolations([imp('policy/images', 'edge', '../../edge')])).toEqual(['policy/images/x.ts: policy (layer 2) imports edge (layer 3)']);
  });

  it('reports an import past another folder’s index.ts', () => {
    expect(findLayerViolations([imp('edge', 'policy', '../policy/compile-policy-image')])).toEqual([
      'edge/x.ts: imports "../policy/compile-policy-image" past the folder\'s index.ts',
    ]);
  });

  it('reports two folders of one layer that import each other', () => {
    expect(findLayerViolations([imp('relay', 'control-plane'), imp('control-plane', 'relay')])).toEqual([
      'folders import each other: control-plane <-> relay',
    ]);
  });

  it('reports a folder and its sub-folder that import each other, directly or through a sibling', () => {
    expect(findLayerViolations([imp('relay', 'relay/cluster', './cluster'), imp('relay/cluster', 'relay', '../relay-errors')])).toEqual([
      'folders import each other: relay <-> relay/cluster',
    ]);
    expect(findLayerViolations([imp('idp', 'idp/oauth', './oauth/mount'), imp('idp/oauth', 'idp/forms', '../forms'), imp('idp/forms', 'idp', '../clock')])).toEqual([
      'folders import each other: idp <-> idp/oauth',
    ]);
  });

  it('reports src/http importing src/sql, which the layers alone allow: the foundation’s HTTP knows no storage', () => {
    expect(findLayerViolations([imp('http', 'sql')])).toEqual(['http/x.ts: http imports sql, which it never may (src/http knows no storage)']);
    expect(findLayerViolations([imp('sql', 'http')])).toEqual([]);
  });

  it('reports the sample apps importing src/fast-path: the sample reads as one Express route per request', () => {
    expect(findLayerViolations([imp('apps', 'fast-path')])).toEqual(['apps/x.ts: apps imports fast-path, which it never may (the sample reads as one Express route per request)']);
    expect(findLayerViolations([imp('control-plane', 'fast-path')])).toEqual([]);
  });

  it('accepts a downward import through index.ts, and a folder that imports its sub-folder one way', () => {
    expect(findLayerViolations([imp('apps', 'authorizer'), imp('edge', 'policy'), imp('policy', 'cache'), imp('relay', 'relay/cluster', './cluster')])).toEqual([]);
  });
});

describe('the packages', () => {
  it.each(PACKAGES)('%s imports nothing of the repository: only its own files, Node and what its package.json declares', (dir) => {
    expect(findPackageEscapes(dir)).toEqual([]);
  });

  it('is imported by the sample apps by its name, never by a path into it', () => {
    const byPath = collectFolderImports(SRC).filter((i) => i.specifier.includes('packages/'));
    expect(byPath).toEqual([]);
  });
});

describe('the modules', () => {
  it('import each other in no circle, types included, in src/ and in the packages', () => {
    expect([SRC, ...PACKAGES.map((p) => join(p, 'src'))].flatMap((dir) => findModuleCycles(dir))).toEqual([]);
  });
});

describe('every index.ts', () => {
  it('exports only what another folder imports from it (src/, scripts/ and test/ read)', () => {
    const root = join(__dirname, '..', '..');
    expect(findUnusedIndexExports(SRC, ['src', 'scripts', 'test'].map((d) => join(root, d)))).toEqual([]);
  });
});

describe('the layer rule’s import parser', () => {
  it('reads a side-effect import', () => {
    expect(importSpecifiers("import './express-request';\nimport '../http';\n")).toEqual(['./express-request', '../http']);
  });

  it('reads both quote styles', () => {
    expect(importSpecifiers('import { a } from "../http";\nimport type { B } from "../sql";\n')).toEqual(['../http', '../sql']);
  });

  it('reads export … from in either quote style, over several lines', () => {
    expect(importSpecifiers("export { a } from '../http';\nexport * from \"../sql\";\nexport type {\n  B,\n  C,\n} from \"../cache\";\n")).toEqual(['../http', '../sql', '../cache']);
  });

  it('reads dynamic import(), spaced or not, in code and in type positions', () => {
    expect(importSpecifiers('const m = await import( "../edge" );\ntype E = typeof import("../policy");\ntype F = import("../cache").Lru;\n')).toEqual([
      '../edge',
      '../policy',
      '../cache',
    ]);
  });

  it('reads require() and import = require() in either quote style', () => {
    expect(importSpecifiers('const a = require("../sql");\nimport b = require("../http");\n')).toEqual(['../sql', '../http']);
  });

  it('reads every import of a line that holds two', () => {
    expect(importSpecifiers("import { a } from '../http'; import { b } from '../sql';\n")).toEqual(['../http', '../sql']);
  });

  it('ignores what only looks like an import: comments and strings', () => {
    const text = "// import('../edge') would be a cycle\nconst hint = \"require('../sql')\";\n/* import { x } from '../policy'; */\nexport const ok = 1;\n";
    expect(importSpecifiers(text)).toEqual([]);
  });
});

describe('the layer rule on a small source tree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'layer-rule-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(files: Readonly<Record<string, string>>): void {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  }

  it('finds relay ↔ relay/cluster and idp ↔ idp/oauth through the files’ own imports', () => {
    write({
      'relay/index.ts': "export { connectCluster } from './cluster';\n",
      'relay/relay-errors.ts': 'export const closing = 1;\n',
      'relay/cluster/index.ts': "import \"../relay-errors\";\nexport const connectCluster = 1;\n",
      'idp/create-idp-app.ts': "import { mount } from './oauth/mount-oauth-routes';\n",
      'idp/clock.ts': 'export type Clock = () => number;\n',
      'idp/oauth/mount-oauth-routes.ts': "import type { Clock } from '../clock';\nexport const mount = 1;\n",
    });
    expect(findLayerViolations(collectFolderImports(root))).toEqual([
      'folders import each other: idp <-> idp/oauth',
      'folders import each other: relay <-> relay/cluster',
    ]);
  });

  it('finds the names an index.ts exports that no other folder imports, by name or through a module object', () => {
    write({
      'src/http/index.ts': "export { serve, close } from './serve';\nexport type { Options } from './serve';\nexport { unused } from './serve';\n",
      'src/http/serve.ts': "export const serve = 1; export const close = 2; export const unused = 3; export type Options = {};\n",
      'src/http/inside.ts': "import { unused } from '.';\n", // its own folder does not count
      'src/edge/app.ts': "import { serve, type Options } from '../http';\n",
      'scripts/run.ts': "let m: typeof import('../src/http');\nm.close;\n",
    });
    expect(findUnusedIndexExports(join(root, 'src'), [join(root, 'src'), join(root, 'scripts')])).toEqual(['http/index.ts: unused']);
  });

  it('finds modules that import each other round a circle, a type-only import too, and not a chain', () => {
    write({
      'relay/broadcast.ts': "import type { EdgeLink } from './management-router';\nexport type Broadcast = 1;\n",
      'relay/management-router.ts': "import { commandRoutes } from './command-routes';\nexport interface EdgeLink {}\n",
      'relay/command-routes.ts': "import type { Broadcast } from './broadcast';\nexport const commandRoutes = 1;\n",
      'http/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'http/b.ts': 'export const b = 1;\n',
    });
    expect(findModuleCycles(root)).toEqual([['relay/broadcast.ts', 'relay/command-routes.ts', 'relay/management-router.ts']]);
  });

  it('reports a package file that reaches out of its package, or imports an undeclared module', () => {
    write({
      'pkg/package.json': JSON.stringify({ dependencies: { 'express-jwt': '^8' }, peerDependencies: { express: '^5' } }),
      'pkg/src/index.ts': "import { expressjwt } from 'express-jwt';\nimport type { Request } from 'express';\nimport { x } from './x';\nimport 'node:crypto';\n",
      'pkg/src/x.ts': "import { HttpError } from '../../src/http';\nimport { LRUCache } from 'lru-cache';\nexport const x = 1;\n",
    });
    expect(findPackageEscapes(join(root, 'pkg'))).toEqual([
      'src/x.ts: imports "../../src/http", outside the package',
      'src/x.ts: imports "lru-cache", which its package.json does not declare',
    ]);
  });

  it('reports a side-effect import of a higher layer written in double quotes', () => {
    write({ 'http/index.ts': 'import "../sql";\n', 'sql/index.ts': 'export {};\n', 'cache/index.ts': 'import "../edge";\n', 'edge/index.ts': 'export {};\n' });
    expect(findLayerViolations(collectFolderImports(root))).toEqual([
      'cache/index.ts: cache (layer 0) imports edge (layer 3)',
      'http/index.ts: http imports sql, which it never may (src/http knows no storage)',
    ]);
  });
});
