/**
 * The connection to the database broke or could not be made, and the driver said so without
 * a code of its own (node-postgres reports a dropped connection or a pool that found no free
 * connection in time as a bare `Error`). The engine wraps such failures in this class so
 * that callers can recognise them by `code`, never by message text (docs/conventions.md §3).
 * The driver's error is kept as `cause`, for the log only.
 */
export class SqlConnectionError extends Error {
  readonly code = 'SQL_CONNECTION_LOST';

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'SqlConnectionError';
  }
}
