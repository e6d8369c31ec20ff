import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/observability';

/** One parsed JSON log line. */
export type LogLine = Record<string, unknown>;

/** A real pino logger at `info` writing its JSON lines into an array, for tests that read the log. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
