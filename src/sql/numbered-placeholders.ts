/** Distinct statement texts remembered; our statements are constants, so this is never reached in practice. */
const CACHE_LIMIT = 1000;

const cache = new Map<string, string>();

/**
 * Rewrites the `?` placeholders both engines' statements are written with into PostgreSQL's
 * `$1…$n`, in order. It assumes what holds for every statement in this repository: a `?`
 * never occurs inside a string literal, a quoted identifier or a comment, and the PostgreSQL
 * operators spelled with `?` (jsonb) are not used. Results are cached by statement text.
 */
export function toNumberedPlaceholders(sql: string): string {
  const known = cache.get(sql);
  if (known !== undefined) return known;
  let out = '';
  let n = 0;
  let from = 0;
  for (let i = sql.indexOf('?'); i !== -1; i = sql.indexOf('?', i + 1)) {
    n += 1;
    out += sql.slice(from, i) + '$' + n;
    from = i + 1;
  }
  out += sql.slice(from);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(sql, out);
  return out;
}
