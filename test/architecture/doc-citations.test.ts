import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBrokenDocCitations, findStrayCitations, readSourceLines, type SourceLine } from './doc-citation-rule';

const ROOT = join(__dirname, '..', '..');
/** The rule, this test and the link test spell out the names they look for; they are not citations. */
const SELF = new Set(['test/architecture/doc-citation-rule.ts', 'test/architecture/doc-citations.test.ts', 'test/docs/doc-links.test.ts']);

function projectLines(): SourceLine[] {
  return readSourceLines(ROOT, ['src', 'scripts', 'test', 'docs/guide'], ['README.md']).filter((l) => !SELF.has(l.file.split('\\').join('/')));
}

function lines(...texts: string[]): SourceLine[] {
  return texts.map((text, i) => ({ file: 'x.ts', line: i + 1, text }));
}

describe('documents cited by the code', () => {
  it('are all in the repository: no comment cites CONVENTIONS, ARCHITECTURE or the service interface', () => {
    expect(findStrayCitations(projectLines())).toEqual([]);
  });

  it('exist under docs/, with every cited § section', () => {
    expect(findBrokenDocCitations(ROOT, projectLines())).toEqual([]);
  });

  it('reads the code it checks (the scan is not empty)', () => {
    const cited = projectLines().filter((l) => l.text.includes('docs/service-interface.md §'));
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.map((l) => l.file)).toContain('src/relay/management-router.ts');
  });

  it('reports each way of citing a document a clone does not have', () => {
    const stray = lines(
      ' * The one place where errors become responses (CONVENTIONS §4).',
      '// built in one place (ARCHITECTURE "Control plane and relay")',
      '/** Service interface §4.3. */',
      "  .description('send a command (service-interface §4.2)')",
    );
    expect(findStrayCitations(stray)).toHaveLength(4);
  });

  it('accepts docs/ paths, Markdown link targets and lower-case words', () => {
    const fine = lines(
      '/** docs/service-interface.md §4.2–4.3 and docs/conventions.md §3. */',
      "import { LAYERS } from '../architecture/layer-rule'; // the test/architecture folder",
      'the relay answers once the edge confirms ([docs/service-interface.md §4.2](../service-interface.md)).',
    );
    expect(findStrayCitations(fine)).toEqual([]);
    expect(findStrayCitations(lines('as [the service interface](../service-interface.md) says'))).toHaveLength(1);
  });

  describe('against a docs/ folder', () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'doc-citations-'));
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs', 'contract.md'), '# Contract\n\n## §4 Endpoints\n\n### §4.2 Exec\n\n### §4.3 List\n\n## §5 Keys\n');
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('accepts cited sections that are headings, single, listed or as a range', () => {
      const cited = lines('// docs/contract.md §4.2', '// docs/contract.md §4.2–4.3', '// (docs/contract.md §4.2, §5)', '// docs/contract.md');
      expect(findBrokenDocCitations(root, cited)).toEqual([]);
    });

    it('reports a missing document and a missing section', () => {
      const cited = lines('// docs/gone.md §1', '// docs/contract.md §2.5', '// docs/contract.md §4.2–4.4');
      expect(findBrokenDocCitations(root, cited)).toEqual([
        'x.ts:1: docs/gone.md does not exist',
        'x.ts:2: docs/contract.md has no section §2.5',
        'x.ts:3: docs/contract.md has no section §4.4',
      ]);
    });
  });
});
