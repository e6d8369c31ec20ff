import { join } from 'node:path';
import { collectFolderImports, findLayerViolations, LAYERS, type FolderImport } from './layer-rule';

const SRC = join(__dirname, '..', '..', 'src');

function imp(from: string, to: string, specifier = `../${to}`): FolderImport {
  return { file: `${from}/x.ts`, from, to, specifier };
}

describe('the layer rule', () => {
  it('holds for every import in src/', () => {
    expect(findLayerViolations(collectFolderImports(SRC))).toEqual([]);
  });

  it('gives every folder of src/ a layer', () => {
    const folders = new Set(collectFolderImports(SRC).flatMap((i) => [i.from, i.to]));
    const placed = new Set(LAYERS.flat());
    expect([...folders].filter((f) => f !== '' && !placed.has(f))).toEqual([]);
  });

  it('finds the imports it checks (the scan is not empty)', () => {
    const imports = collectFolderImports(SRC);
    expect(imports.length).toBeGreaterThan(50);
    expect(imports).toContainEqual(expect.objectContaining({ from: 'apps', to: 'middleware' }));
  });

  it('reports an import of a higher layer', () => {
    expect(findLayerViolations([imp('policy', 'edge')])).toEqual(['policy/x.ts: policy (layer 2) imports edge (layer 3)']);
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

  it('accepts a downward import through index.ts', () => {
    expect(findLayerViolations([imp('apps', 'middleware'), imp('edge', 'policy'), imp('policy', 'cache')])).toEqual([]);
  });
});
