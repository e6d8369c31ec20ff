import { cpus, loadavg } from 'node:os';

/** A cell: text as is, numbers rounded to `digits` (default 1). */
export type Cell = string | number;

/** Formats a number for a table; NaN prints as `n/a`. */
export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/**
 * Prints a GitHub-flavoured Markdown table, so the output can be pasted into
 * BENCHMARKS.md as it is. Numeric columns are right-aligned.
 */
export function printTable(headers: readonly string[], rows: readonly (readonly Cell[])[], digits = 1): void {
  const numeric = headers.map((_h, col) => rows.length > 0 && rows.every((row) => typeof row[col] === 'number'));
  console.log(`| ${headers.join(' | ')} |`);
  console.log(`|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`);
  for (const row of rows) {
    console.log(`| ${row.map((cell) => (typeof cell === 'number' ? fmt(cell, digits) : cell)).join(' | ')} |`);
  }
}

/** One line describing where the figures come from; the machines are shared and noisy. */
export function machineLine(): string {
  const cpu = cpus();
  return `node ${process.version}, ${process.platform}/${process.arch}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown'}), load average ${loadAverage()}`;
}

/** The 1, 5 and 15 minute load averages, `1.02 1.48 1.60`. */
export function loadAverage(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** `PASS` or `BELOW GOAL`; benchmarks report, they never fail the run. */
export function verdict(met: boolean): string {
  return met ? 'PASS' : 'BELOW GOAL';
}
