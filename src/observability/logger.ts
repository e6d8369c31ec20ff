import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { batchedDestination, type BatchedDestination } from './batched-destination';

export type { Logger };

/**
 * Paths that may hold a credential. pino removes them before a line is written, so a
 * careless `log.info({ req })` still never leaks a token, key or password.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["service-tenant-id"]',
  'res.headers["set-cookie"]',
  'password',
  'token',
  'access_token',
  'id_token',
  'secret',
  'key',
  '*.password',
  '*.token',
  '*.secret',
];

let stdout: BatchedDestination | undefined;

/**
 * The process's one log destination: stdout, written in batches of about 4 KiB (one write
 * per ~15 request lines instead of one each; `npm run bench:apps` measured the log line as
 * one of the largest layers of a request) by {@link batchedDestination}. The buffer is
 * bounded (1 MiB: a flood drops lines, never grows memory), a line waits at most 1 s, and
 * the buffer is written synchronously when the process exits — `process.exit`, a signal
 * handled by `shutdownOnSignal`, or an uncaught error (test/observability checks each). Only
 * a hard kill (SIGKILL, power loss) can lose lines: at most the last 4 KiB or 1 s of them
 * (docs/reference/security.md).
 */
function stdoutDestination(): BatchedDestination {
  if (stdout === undefined) {
    const destination = batchedDestination(1);
    process.on('exit', () => destination.flushSync());
    stdout = destination;
  }
  return stdout;
}

/**
 * A JSON logger named after the component (`idp`, `rbac-app`, …), writing to stdout (see
 * {@link stdoutDestination}) unless given another destination (tests).
 */
export function createLogger(name: string, level: LevelWithSilent = 'info', destination: DestinationStream = stdoutDestination()): Logger {
  return pino({ name, level, redact: { paths: REDACT, remove: true } }, destination);
}

/**
 * A child of `logger` that writes its lines without redaction, for lines whose every field
 * the caller chose itself and none of which can hold a credential: the edge's decision lines
 * (ids, action, resource, decision, policy ids, digests) and the apps' request line (five
 * fixed fields, src/http/request-context.ts). The wildcard paths cost a decision more CPU
 * than anything else in its log line (`npm run bench:peer`, sidecar part) and every request
 * a walk of its line (`npm run bench:apps`); `logger` itself keeps redacting.
 */
export function unredactedLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}

/** A logger that writes nothing, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
