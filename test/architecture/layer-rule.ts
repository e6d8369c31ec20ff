import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The layer of every folder under `src/`, lowest first. A module may import its own folder,
 * any folder of a lower layer, and a folder of its own layer when no cycle results; never a
 * higher layer. The README's Layout section says the same in prose.
 */
export const LAYERS: readonly (readonly string[])[] = [
  // foundation: logging, HTTP plumbing, generic data structures and files
  ['observability', 'http', 'cache', 'files', 'sql'],
  // protocol: wire formats and standards, no business rules
  ['oauth2-bearer', 'relay-protocol', 'decision-protocol'],
  // core: configuration, token verification, policy images and Cedar, the directory, decisions
  ['config', 'access-token', 'policy', 'directory', 'decision'],
  // services: each a component of its own
  ['idp', 'relay', 'control-plane', 'edge'],
  // apps: what a user runs or copies
  ['authorizer', 'middleware', 'apps', 'stack'],
];

/** One import of one module: from folder, to folder, and the specifier as written. */
export interface FolderImport {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|\brequire\('([^']+)'\)|\bimport\('([^']+)'\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder under `srcDir` that `path` lies in (`''` for files directly in it). */
function topFolder(srcDir: string, path: string): string {
  const rel = relative(srcDir, path);
  return rel.includes(sep) ? rel.split(sep)[0]! : '';
}

/** Every relative import in `srcDir` that crosses from one top folder into another. */
export function collectFolderImports(srcDir: string): FolderImport[] {
  const found: FolderImport[] = [];
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (!specifier.startsWith('.')) continue;
      const from = topFolder(srcDir, file);
      const to = topFolder(srcDir, resolve(dirname(file), specifier, 'x'));
      if (from !== to) found.push({ file: relative(srcDir, file), from, to, specifier });
    }
  }
  return found;
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/** Folder pairs that import each other, directly or through others of the same set. */
function cycles(imports: readonly FolderImport[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  }
  const reaches = (start: string, goal: string, seen = new Set<string>()): boolean => {
    for (const next of edges.get(start) ?? []) {
      if (next === goal) return true;
      if (!seen.has(next)) {
        seen.add(next);
        if (reaches(next, goal, seen)) return true;
      }
    }
    return false;
  };
  const found: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) if (from < to && reaches(to, from)) found.push(`${from} <-> ${to}`);
  }
  return found;
}

/**
 * Every breach of the layer rule, as readable lines: a folder missing from {@link LAYERS},
 * an import of a higher layer, an import past another folder's `index.ts`, a cycle.
 */
export function findLayerViolations(imports: readonly FolderImport[]): string[] {
  const problems: string[] = [];
  for (const imp of imports) {
    const fromLayer = layerOf(imp.from);
    const toLayer = layerOf(imp.to);
    if (fromLayer < 0) problems.push(`${imp.file}: folder "${imp.from}" has no layer`);
    else if (toLayer < 0) problems.push(`${imp.file}: imports "${imp.specifier}", a folder with no layer`);
    else if (toLayer > fromLayer) problems.push(`${imp.file}: ${imp.from} (layer ${fromLayer}) imports ${imp.to} (layer ${toLayer})`);
    if (!/^(\.\.\/)+[a-z0-9-]+$/.test(imp.specifier)) {
      problems.push(`${imp.file}: imports "${imp.specifier}" past the folder's index.ts`);
    }
  }
  for (const cycle of cycles(imports)) problems.push(`folders import each other: ${cycle}`);
  return problems;
}
