/**
 * A policy's test file (`tests/*.json`) written the way the sample policies' are: one block a
 * case, one line a field, the case's directory one line a field of its own. A script that
 * writes a test file (`npm run new-app`, `npm run demo`'s changed rbac) writes it so: then a
 * diff of two images — the console's Policies view, `git diff` — shows the cases that changed,
 * line by line, instead of one line that is the whole file.
 */

/** JSON on one line with a space after each `:` and `,`. */
export function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

/** `{…}` with one field a line at `indent` spaces; the fields named in `expand` (objects) as blocks of their own. */
function block(value: Record<string, unknown>, indent: number, expand: readonly string[]): string {
  const pad = ' '.repeat(indent);
  const fields = Object.entries(value).map(([key, field]) => {
    const shown = expand.includes(key) && field !== null && typeof field === 'object' && !Array.isArray(field)
      ? block(field as Record<string, unknown>, indent + 2, []).trimStart()
      : inlineJson(field);
    return `${pad}  ${JSON.stringify(key)}: ${shown}`;
  });
  return `${pad}{\n${fields.join(',\n')}\n${pad}}`;
}

/** One case as a block of the file (two spaces in, no trailing comma or newline). */
export function formatPolicyTestCase(testCase: Record<string, unknown>): string {
  return block(testCase, 2, ['directory']);
}

/** A whole test file: its cases (each an object, its fields in their order), ending in a newline. */
export function formatPolicyTests(cases: readonly Record<string, unknown>[]): string {
  return `[\n${cases.map(formatPolicyTestCase).join(',\n')}\n]\n`;
}
