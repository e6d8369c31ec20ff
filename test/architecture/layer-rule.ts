import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * The layer of every folder under `src/`, lowest first. A module may import its own folder,
 * any folder of a lower layer, and a folder of its own layer when no cycle results; never a
 * higher layer. docs/reference/code-layout.md says the same in prose.
 */
export const LAYERS: readonly (readonly string[])[] = [
  // foundation: logging, HTTP plumbing, generic data structures and files, and the platform's
  // opt-in fast paths over that HTTP (fast-path, off by default)
  ['observability', 'http', 'cache', 'files', 'sql', 'fast-path'],
  // protocol: wire formats and standards, no business rules
  ['relay-protocol', 'decision-protocol'],
  // core: configuration, policy images and Cedar, the directory, decisions
  ['config', 'policy', 'directory', 'decision'],
  // services: the seed's components, each of its own, with their hooks
  ['idp', 'relay', 'control-plane', 'edge'],
  // platform: areas that plug into a service's hook (EdgeRuntimeDeps.plugins and .imageSignatures, RelayDeps.cluster
  // and .extensions, the control plane's extensions, the IdP's routers) or serve over one
  ['decision-records', 'edge-metrics', 'authzen', 'signed-images', 'signing-keys', 'cluster', 'edge-drift', 'relay-broadcast', 'decision-store', 'console', 'openapi'],
  // apps: what a user runs or copies, and the processes that plug the platform in (the sidecar
  // for an edge, control-plane-server for the control plane and its relay, idp-server for the IdP)
  ['authorizer', 'embedded-edge', 'apps', 'sidecar', 'stack', 'interop', 'control-plane-server', 'idp-server'],
];
// Below every layer: the middleware package (packages/express-authz), which any folder may
// import by its name and which imports nothing of the repository ({@link findPackageEscapes}).

/**
 * One import of one module that leaves its folder: the importing file, the folder it lies in
 * and the folder it imports (paths under `src/`, `/`-separated, so `relay/cluster`), and the
 * specifier as written.
 */
export interface FolderImport {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

/**
 * Every module a source names, read by TypeScript's own parser rather than a pattern, so
 * neither quote style, line breaks, comments nor strings mislead it: `import … from`,
 * side-effect `import '…'`, `import type`, `export … from`, `import x = require('…')`,
 * `require('…')`, dynamic `import('…')` and type-position `import('…').T`.
 */
export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && isImportOrRequire(node.expression) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return found;
}

function isImportOrRequire(callee: ts.Expression): boolean {
  return callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `path` relative to `srcDir`, `/`-separated whatever the platform. */
function underSrc(srcDir: string, path: string): string {
  return relative(srcDir, path).split(sep).join('/');
}

/** The top folder of a folder path under `src/` (`relay` for `relay/cluster`, `''` for `src/` itself). */
export function topFolder(folder: string): string {
  return folder.split('/')[0]!;
}

/** The folder a relative specifier reaches: the folder itself (its `index.ts`) or the file's folder. */
function targetFolder(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier);
  return existsSync(target) && statSync(target).isDirectory() ? target : dirname(target);
}

/**
 * Every relative import in `srcDir` that leaves its own folder: into another top folder, or
 * between a folder and one of its sub-folders (`relay` ↔ `relay/cluster`).
 */
export function collectFolderImports(srcDir: string): FolderImport[] {
  const found: FolderImport[] = [];
  for (const file of sourceFiles(srcDir)) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const from = underSrc(srcDir, dirname(file));
      const to = underSrc(srcDir, targetFolder(file, specifier));
      if (from !== to) found.push({ file: underSrc(srcDir, file), from, to, specifier });
    }
  }
  return found;
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/**
 * Imports the layers alone would allow but the design does not: `src/http` knows no storage
 * (storage errors are translated where storage lives, by `src/sql`'s translator), so an app
 * without a database loads no database driver; and the sample apps never take the platform's
 * opt-in fast path (`src/fast-path`): they read as one Express route per request.
 */
export const NEVER_IMPORTS: readonly { readonly from: string; readonly to: string; readonly why: string }[] = [
  { from: 'http', to: 'sql', why: 'src/http knows no storage' },
  { from: 'apps', to: 'fast-path', why: 'the sample reads as one Express route per request' },
];

/** Folder pairs that import each other, directly or through others of the same set. */
function cycles(edges: readonly (readonly [string, string])[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  const reaches = (start: string, goal: string, seen = new Set<string>()): boolean => {
    for (const step of next.get(start) ?? []) {
      if (step === goal) return true;
      if (!seen.has(step)) {
        seen.add(step);
        if (reaches(step, goal, seen)) return true;
      }
    }
    return false;
  };
  const found: string[] = [];
  for (const [from, targets] of next) {
    for (const to of targets) if (from < to && reaches(to, from)) found.push(`${from} <-> ${to}`);
  }
  return found;
}

/**
 * Every breach of the layer rule, as readable lines: a folder missing from {@link LAYERS},
 * an import of a higher layer, an import past another folder's `index.ts`, one of
 * {@link NEVER_IMPORTS}, a cycle between top folders, or a cycle between a folder and its
 * sub-folders (`idp` ↔ `idp/oauth`).
 */
export function findLayerViolations(imports: readonly FolderImport[]): string[] {
  const problems: string[] = [];
  const crossing = imports.filter((imp) => topFolder(imp.from) !== topFolder(imp.to));
  for (const imp of crossing) {
    const from = topFolder(imp.from);
    const to = topFolder(imp.to);
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (fromLayer < 0) problems.push(`${imp.file}: folder "${from}" has no layer`);
    else if (toLayer < 0) problems.push(`${imp.file}: imports "${imp.specifier}", a folder with no layer`);
    else if (toLayer > fromLayer) problems.push(`${imp.file}: ${from} (layer ${fromLayer}) imports ${to} (layer ${toLayer})`);
    if (!/^(\.\.\/)+[a-z0-9-]+$/.test(imp.specifier)) {
      problems.push(`${imp.file}: imports "${imp.specifier}" past the folder's index.ts`);
    }
    const never = NEVER_IMPORTS.find((rule) => rule.from === from && rule.to === to);
    if (never) problems.push(`${imp.file}: ${from} imports ${to}, which it never may (${never.why})`);
  }
  const topEdges = crossing.map((imp) => [topFolder(imp.from), topFolder(imp.to)] as const);
  const nestedEdges = imports.filter((imp) => topFolder(imp.from) === topFolder(imp.to)).map((imp) => [imp.from, imp.to] as const);
  for (const cycle of [...cycles(topEdges), ...cycles(nestedEdges)]) problems.push(`folders import each other: ${cycle}`);
  return problems;
}

/** Node's own modules, which a package may always import. */
const BUILTINS = new Set(require('node:module').builtinModules as string[]);

/**
 * Every import in a package under `packages/` that leaves it: a relative import out of the
 * package's folder, or a bare one that is neither a Node module nor in its package.json's
 * dependencies or peerDependencies. A package installs alone (`npm pack`), so it may lean on
 * nothing else of the repository.
 */
export function findPackageEscapes(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: object; peerDependencies?: object };
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const srcDir = join(packageDir, 'src');
  const problems: string[] = [];
  for (const file of sourceFiles(srcDir)) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      const where = underSrc(packageDir, file);
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (!`${target}${sep}`.startsWith(`${srcDir}${sep}`)) problems.push(`${where}: imports "${specifier}", outside the package`);
        continue;
      }
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      if (!BUILTINS.has(specifier.replace(/^node:/, '')) && !declared.has(name)) problems.push(`${where}: imports "${specifier}", which its package.json does not declare`);
    }
  }
  return problems;
}

/** The names a module exports by `export { … }`, `export { … } from`, and exported declarations. */
export function exportedNames(text: string): string[] {
  const names: string[] = [];
  const source = ts.createSourceFile('index.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.push(element.name.text);
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const name = (statement as { name?: ts.Identifier }).name;
      if (name) names.push(name.text);
      if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    }
  }
  return names;
}

/** Each import of `file` that names a folder (its `index.ts`), with the names it takes. */
function folderImports(file: string, text: string): { folder: string; names: string[] }[] {
  const found: { folder: string; names: string[] }[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
      const target = resolve(dirname(file), node.moduleSpecifier.text);
      if (existsSync(join(target, 'index.ts'))) {
        const names: string[] = [];
        const clause = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
        if (clause && (ts.isNamedImports(clause) || ts.isNamedExports(clause))) for (const e of clause.elements) names.push((e.propertyName ?? e.name).text);
        found.push({ folder: target, names });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolve(dirname(file), node.argument.literal.text);
      // `import('…').T` takes T; `typeof import('…')` types a module object, whose members the file reads as `.name`.
      if (existsSync(join(target, 'index.ts'))) found.push({ folder: target, names: node.qualifier && ts.isIdentifier(node.qualifier) ? [node.qualifier.text] : [...text.matchAll(/\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Every name a folder's `index.ts` under `srcDir` exports that no module outside that folder
 * imports from it (the modules of `readerDirs`: the source, the scripts, the tests): an index
 * names what other folders take, nothing more.
 */
export function findUnusedIndexExports(srcDir: string, readerDirs: readonly string[]): string[] {
  const taken = new Map<string, Set<string>>();
  for (const dir of readerDirs) {
    for (const file of sourceFiles(dir)) {
      for (const { folder, names } of folderImports(file, readFileSync(file, 'utf8'))) {
        if (`${dirname(file)}${sep}`.startsWith(`${folder}${sep}`)) continue; // the folder's own modules
        if (!taken.has(folder)) taken.set(folder, new Set());
        for (const name of names) taken.get(folder)!.add(name);
      }
    }
  }
  const unused: string[] = [];
  for (const index of sourceFiles(srcDir).filter((f) => f.endsWith(`${sep}index.ts`))) {
    const folder = dirname(index);
    for (const name of exportedNames(readFileSync(index, 'utf8'))) {
      if (!taken.get(folder)?.has(name)) unused.push(`${underSrc(srcDir, index)}: ${name}`);
    }
  }
  return unused.sort();
}

/** The module a relative specifier of `file` names, when it is one of the tree's `.ts` files (or a folder's `index.ts`). */
function resolveModule(file: string, specifier: string): string | undefined {
  const target = resolve(dirname(file), specifier);
  return [`${target}.ts`, join(target, 'index.ts')].find((candidate) => existsSync(candidate));
}

/**
 * Every set of modules under `dir` that import each other, directly or round a circle (types
 * included): each as its files, `/`-separated under `dir`. Tarjan's strongly connected components.
 */
export function findModuleCycles(dir: string): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const deps = importSpecifiers(readFileSync(file, 'utf8')).filter((s) => s.startsWith('.')).map((s) => resolveModule(file, s));
    edges.set(file, deps.filter((d): d is string => d !== undefined));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(underSrc(dir, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) connect(file);
  return found;
}
