// A line diff for the Policies view, small enough to read: the longest common subsequence of
// the two files' lines (a table of lengths, filled from the end), then one walk from the start
// that keeps common lines and marks the others removed (-) or added (+); long unchanged runs
// are folded (foldUnchanged), so a change in a long file is read where it is.

/** A file's lines; a file that is not there has none. */
const linesOf = (text) => (text === undefined ? [] : text.split('\n'));

/**
 * The lines of `before` and `after` (either may be undefined: no such file) as `{op, line}`:
 * op ' ' (both), '-' (only before), '+' (only after); a changed line is its '-' then its '+'.
 */
export function lineDiff(before, after) {
  const a = linesOf(before);
  const b = linesOf(after);
  // common[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ op: ' ', line: a[i++] });
      j++;
    } else if (j < b.length && (i === a.length || common[i][j + 1] > common[i + 1][j])) {
      out.push({ op: '+', line: b[j++] });
    } else {
      out.push({ op: '-', line: a[i++] });
    }
  }
  return out;
}

/**
 * Per file of two images (`{path: text}`), what changed: files only in `after` are all '+',
 * only in `before` all '-', identical files are left out.
 */
export function imageDiff(before, after) {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths
    .filter((path) => before[path] !== after[path])
    .map((path) => ({ path, lines: lineDiff(before[path], after[path]) }));
}

/** Unchanged lines kept on each side of a change; a longer unchanged run between is folded. */
export const CONTEXT_LINES = 3;

/**
 * The lines of a {@link lineDiff} with each long run of unchanged lines folded: `CONTEXT_LINES`
 * kept next to each change, the rest as one `{op: 'fold', lines}` the view shows as "… n
 * unchanged lines …" and opens on request. A run is folded only when that hides more than
 * `CONTEXT_LINES` lines — hiding a few would cost as much room as showing them.
 */
export function foldUnchanged(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].op !== ' ') {
      out.push(lines[i++]);
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end].op === ' ') end++;
    const keepBefore = i === 0 ? 0 : CONTEXT_LINES; // context after the change above
    const keepAfter = end === lines.length ? 0 : CONTEXT_LINES; // context before the change below
    const hidden = end - i - keepBefore - keepAfter;
    if (hidden > CONTEXT_LINES) {
      out.push(...lines.slice(i, i + keepBefore), { op: 'fold', lines: lines.slice(i + keepBefore, end - keepAfter) }, ...lines.slice(end - keepAfter, end));
    } else {
      out.push(...lines.slice(i, end));
    }
    i = end;
  }
  return out;
}
