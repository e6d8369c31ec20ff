/**
 * A database URL fit for a log line or an error message: the password, if any, becomes
 * `***` (`postgres://user:***@host:5432/db`), in the user-info part or in a `password`
 * query parameter. Text that does not parse as a URL is not echoed at all, since it may be a
 * password pasted in the wrong place.
 */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a database URL that does not parse)';
  }
  if (parsed.password !== '') parsed.password = '***';
  // libpq also takes the password as a query parameter.
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.toString();
}
