import { readFileSync } from 'node:fs';

/**
 * A persisted file that exists but cannot be used. The message always starts with the
 * path, and never quotes the content: these files hold private keys and secrets.
 */
export class FileContentError extends Error {
  override readonly name = 'FileContentError';

  constructor(
    /** The file that could not be used. */
    readonly file: string,
    /** Why, without any of the file's content (`empty`, `not valid JSON (at position 12)`). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${reason}`, options);
  }
}

/**
 * Where a JSON.parse error happened, without the excerpt of the input that V8 puts in
 * some messages (`Unexpected token 'x', "{"d": x…" is not valid JSON`).
 */
function describeSyntaxError(err: SyntaxError): string {
  const position = /at position (\d+)/.exec(err.message);
  if (position) return `at position ${position[1]}`;
  return /end of JSON input/.test(err.message) ? 'ends too early' : 'syntax error';
}

/**
 * Reads and parses a JSON file. Returns `undefined` when the file does not exist (first
 * start); every other problem throws a {@link FileContentError} naming the file:
 * `<path>: empty` (what a write without fsync can leave after a power loss),
 * `<path>: not valid JSON (at position 12)`, `<path>: cannot read (EACCES)`.
 */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new FileContentError(file, `cannot read (${code ?? 'unknown error'})`, { cause: err });
  }
  if (text.trim() === '') throw new FileContentError(file, 'empty');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new FileContentError(file, `not valid JSON (${describeSyntaxError(err as SyntaxError)})`);
  }
}
