import { errorInShape, type ErrorShape, type ErrorTranslator, type HttpError } from '../http';
import { isStorageFull, isStorageUnavailable } from './is-storage-unavailable';

/** What a storage 503 tells the caller: the failure usually passes within a second or so. */
const STORAGE_RETRY_AFTER_SECONDS = '1';

/**
 * A storage failure (SQLite busy past its timeout, read-only, I/O error; PostgreSQL
 * unreachable, restarting, out of connections or resolving a conflict) is our fault and
 * usually passes: 503 with `Retry-After`, the error's code only in the log. A full disk does
 * not pass by itself: 507 `insufficient_storage` (RFC 4918 §11.5) without `Retry-After`, so
 * clients stop retrying every second. Recognised by code, never by message text
 * ({@link isStorageUnavailable}, {@link isStorageFull}).
 */
function translateStorageError(err: unknown, shape: ErrorShape): HttpError | undefined {
  if (isStorageFull(err)) return shape === 'oauth' ? errorInShape(shape, 'server_error', 'storage is full', { status: 507 }) : errorInShape(shape, 'insufficient_storage');
  if (!isStorageUnavailable(err)) return undefined;
  const retry = { headers: { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS } };
  return errorInShape(shape, shape === 'oauth' ? 'temporarily_unavailable' : 'storage_unavailable', 'storage is busy or unavailable; retry shortly', retry);
}

/**
 * The error handler's translator for storage failures (`finishApp(app, logger, shape,
 * [storageErrorTranslator])`): every app that keeps data in SQLite or PostgreSQL passes it;
 * it lives here so that `src/http` knows no storage (docs/architecture.md, "Layers").
 */
export const storageErrorTranslator: ErrorTranslator = Object.freeze({ label: 'storage', translate: translateStorageError });
