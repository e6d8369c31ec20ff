import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGeneratedSection } from '../../scripts/lib/generated-section';
import { ERROR_CODES, ERROR_CODES_MARKERS, isCodeAt, renderErrorCodesTable, statusesOf, type ErrorCode } from '../../src/http';
import { EDGE_FAILURE_CODES } from '../../src/relay-protocol';

const REFERENCE = readFileSync(join(__dirname, '..', '..', 'docs', 'reference', 'api.md'), 'utf8');

/** The reference with its generated list cut out: the sections that say where and when. */
function sectionsAbove(): string {
  const [open, close] = ERROR_CODES_MARKERS;
  return REFERENCE.slice(0, REFERENCE.indexOf(open)) + REFERENCE.slice(REFERENCE.indexOf(close) + close.length);
}

/**
 * Every code the reference names with its status: in an error row (`| 409 | \`code\`, … | when |`)
 * or in prose (`… is 400 \`invalid_query\``), with the statuses it is named at; and every code a
 * table of codes lists (`| code | … |`, the edge's failure codes), with no status.
 */
function codesNamed(text: string): { code: string; statuses: number[] }[] {
  const lines = text.split('\n');
  const inRows = lines.flatMap((row) => {
    const cells = /^\| (\d{3}(?:, \d{3})*) \| ((?:[^|\\]|\\.)*) \|/.exec(row);
    if (!cells) return [];
    const statuses = cells[1]!.split(', ').map(Number);
    return [...cells[2]!.matchAll(/`([a-z][a-z_]*)`/g)].map((m) => ({ code: m[1]!, statuses }));
  });
  const inProse = [...text.matchAll(/\b(\d{3})\s+`([a-z][a-z_]*)`/g)].map((m) => ({ code: m[2]!, statuses: [Number(m[1])] }));
  const inCodeTables = lines.flatMap((row, i) => {
    const header = lines.slice(0, i).findLast((l) => !l.startsWith('|') || /^\| code \|/.test(l));
    if (!row.startsWith('| `') || header === undefined || !/^\| code \|/.test(header)) return [];
    return [...row.split(' | ')[0]!.matchAll(/`([a-z][a-z_]*)`/g)].map((m) => ({ code: m[1]!, statuses: [] }));
  });
  return [...inRows, ...inProse, ...inCodeTables];
}

describe('the API reference and the table of error codes (src/http/error-codes.ts)', () => {
  it('docs/reference/api.md lists every code of the table, as generated from it (run npm run error-codes:docs)', () => {
    expect(REFERENCE.indexOf(ERROR_CODES_MARKERS[0])).toBeGreaterThan(0);
    const section = readGeneratedSection(REFERENCE, ERROR_CODES_MARKERS, 'api.md');
    expect(section).toBe(renderErrorCodesTable());
    for (const code of Object.keys(ERROR_CODES)) expect(section.match(new RegExp(`^\\| \`${code}\` \\|`, 'gm'))).toHaveLength(1);
  });

  it('names only codes of the table, each at a status the table gives it', () => {
    const named = codesNamed(sectionsAbove());
    expect(named.length).toBeGreaterThan(100);
    const atAStatus = (code: string, statuses: number[]) => statuses.length === 0 || statuses.some((s) => statusesOf(code as ErrorCode).includes(s));
    const wrong = named.filter(({ code, statuses }) => !Object.hasOwn(ERROR_CODES, code) || !atAStatus(code, statuses));
    expect(wrong).toEqual([]);
  });

  it('says where and when each code of the table is answered, in the section of its API', () => {
    const named = new Set(codesNamed(sectionsAbove()).map((n) => n.code));
    expect(Object.keys(ERROR_CODES).filter((code) => !named.has(code))).toEqual([]);
  });

  it('finds a code that is not in the table, or at a status the table does not give it', () => {
    const text = ['| 409 | `no_such_code`, `instance_not_found` | x |', '| 1001 | `relay_closing` |', 'else 410 `bad_request`.', '', '| code | the edge… |', '|---|---|', '| `sync_failed` | x |'].join('\n');
    expect(codesNamed(text)).toEqual([
      { code: 'no_such_code', statuses: [409] },
      { code: 'instance_not_found', statuses: [409] },
      { code: 'bad_request', statuses: [410] },
      { code: 'sync_failed', statuses: [] },
    ]);
    expect(Object.hasOwn(ERROR_CODES, 'no_such_code')).toBe(false);
    expect(statusesOf('instance_not_found')).not.toContain(409);
  });
});

describe('the table of error codes', () => {
  it('gives every code an edge may report a 502, the status exec passes it on with', () => {
    expect([...EDGE_FAILURE_CODES].filter((code) => !isCodeAt(code, 502))).toEqual([]);
  });

  it('lists each status of a code once, and only error statuses', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const statuses = statusesOf(code);
      expect({ code, statuses: new Set(statuses).size }).toEqual({ code, statuses: statuses.length });
      expect(statuses.every((s) => s >= 400 && s <= 599)).toBe(true);
    }
  });
});
