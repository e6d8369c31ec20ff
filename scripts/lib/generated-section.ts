/**
 * A document's generated section: the text between two marker comments, which a `*:docs`
 * script writes and a docs test compares with what the code would write now.
 */

/** Where the section lies in `text`; throws, naming `file`, when the markers are missing or out of order. */
function bounds(text: string, [open, close]: readonly [string, string], file: string): { start: number; end: number } {
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${file} has no ${open} … ${close} section`);
  return { start: start + open.length, end };
}

/** The section's content, trimmed. */
export function readGeneratedSection(text: string, markers: readonly [string, string], file: string): string {
  const { start, end } = bounds(text, markers, file);
  return text.slice(start, end).trim();
}

/** `text` with the section's content replaced by `body`, the markers kept. */
export function writeGeneratedSection(text: string, markers: readonly [string, string], body: string, file: string): string {
  const { start, end } = bounds(text, markers, file);
  return `${text.slice(0, start)}\n${body}\n${text.slice(end)}`;
}
