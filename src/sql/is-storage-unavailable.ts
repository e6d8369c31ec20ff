import { SqlConnectionError } from './sql-connection-error';

/** Socket failures on the way to a database server: the server is down, restarting or unreachable. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs, outside the classes below, that say "try again shortly" rather than
 * "this request is wrong": the server shutting down or starting (57P01–57P03), a
 * serialization failure or deadlock victim (40001, 40P01), a lock or statement time-out
 * (55P03, 57014 — the counterpart of SQLite's busy time-out), and a transaction the server
 * ended for idling past `idle_in_transaction_session_timeout` (25P03). That last one reaches
 * us either as the connection's own error (then the next query finds it broken: a
 * {@link SqlConnectionError}) or, when the next query was already sent, as that query's error
 * with the code: both are the same failure and must be answered alike.
 */
const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '55P03', '57014', '25P03']);

/** SQLSTATE classes that are about the server, not the statement: 08 connection, 53 resources. */
const TRANSIENT_SQLSTATE_CLASSES: ReadonlySet<string> = new Set(['08', '53']);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** A full disk: SQLite's SQLITE_FULL, PostgreSQL's 53100 disk_full. */
const FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', '53100']);

/**
 * Whether the storage is full: answered 507 `insufficient_storage` with no `Retry-After`,
 * because retrying in a second will not help — someone has to free space. Recognised by
 * `code` only (docs/conventions.md §3); such a failure is never {@link isStorageUnavailable}.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && FULL_CODES.has(code);
}

/**
 * Whether a failure belongs to the storage rather than to the request and usually passes:
 * answered with 503 `storage_unavailable` and `Retry-After`, and logged with its code only.
 * Covers both engines: better-sqlite3's `SQLITE_*` codes (busy past the time-out, read-only,
 * I/O), and for PostgreSQL the socket errors, a dropped connection ({@link SqlConnectionError})
 * and the SQLSTATEs of a server that is unreachable, out of resources, restarting or resolving
 * a conflict. A full disk is not among them: see {@link isStorageFull}. Recognised by `code`
 * only, never by message text (docs/conventions.md §3).
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof SqlConnectionError) return true;
  const code = (err as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string' || FULL_CODES.has(code)) return false;
  if (code.startsWith('SQLITE_')) return true;
  if (NETWORK_CODES.has(code)) return true;
  if (!SQLSTATE.test(code)) return false;
  return TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
