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
 * (55P03, 57014 — the counterpart of SQLite's busy time-out).
 */
const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '55P03', '57014']);

/** SQLSTATE classes that are about the server, not the statement: 08 connection, 53 resources. */
const TRANSIENT_SQLSTATE_CLASSES: ReadonlySet<string> = new Set(['08', '53']);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Whether a failure belongs to the storage rather than to the request: answered with 503
 * `storage_unavailable` and `Retry-After`, and logged with its code only. Covers both engines:
 * better-sqlite3's `SQLITE_*` codes (busy past the time-out, read-only, disk full, I/O), and
 * for PostgreSQL the socket errors, a dropped connection ({@link SqlConnectionError}) and the
 * SQLSTATEs of a server that is unreachable, out of resources, restarting or resolving a
 * conflict. Recognised by `code` only, never by message text (docs/conventions.md §3).
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof SqlConnectionError) return true;
  const code = (err as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string') return false;
  if (code.startsWith('SQLITE_')) return true;
  if (NETWORK_CODES.has(code)) return true;
  if (!SQLSTATE.test(code)) return false;
  return TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
