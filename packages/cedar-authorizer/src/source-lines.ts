import type { DetailedError } from '@cedar-policy/cedar-wasm/nodejs';

/** 1-based line of a UTF-16 index in `text`. */
export function lineOfIndex(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * 1-based line of a Cedar source offset. Cedar reports offsets in UTF-8 bytes (Rust
 * string indices), so non-ASCII text before the error would skew a character count.
 */
export function lineOfByteOffset(text: string, byteOffset: number): number {
  const prefix = Buffer.from(text, 'utf8').subarray(0, byteOffset).toString('utf8');
  return lineOfIndex(text, prefix.length);
}

/** Cedar's message plus its label and help, on one line. */
export function describeCedarError(error: DetailedError): string {
  const label = error.sourceLocations?.find((l) => l.label)?.label;
  return [error.message, label, error.help].filter(Boolean).join('; ');
}

/**
 * `<file>:<line>: <message>` for an error whose offsets are relative to `text`, which
 * starts on line `firstLine` of `file`; `<file>: <message>` when Cedar gave no location.
 */
export function locateCedarError(error: DetailedError, file: string, text: string, firstLine = 1): string {
  const start = error.sourceLocations?.[0]?.start;
  if (start === undefined) return `${file}: ${describeCedarError(error)}`;
  return `${file}:${firstLine + lineOfByteOffset(text, start) - 1}: ${describeCedarError(error)}`;
}
