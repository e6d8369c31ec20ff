/**
 * The `WWW-Authenticate` challenge of RFC 6750 §3:
 * `Bearer realm="api", error="invalid_token", error_description="…"`.
 * Every bearer challenge Outpost sends is built here, so quoting is done in one place.
 */

/** Parameters of a Bearer challenge; absent ones are left out (RFC 6750 §3.1). */
export interface BearerChallenge {
  realm: string;
  error?: string;
  error_description?: string;
  scope?: string;
}

/**
 * Quotes a value as an RFC 9110 §5.6.4 quoted-string: `\` and `"` are escaped and any
 * character outside printable ASCII (CR, LF, non-ASCII) is replaced, so a description can
 * never split or inject a header.
 */
export function quoteHeaderValue(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Builds the challenge header value. Parameter order follows RFC 6750 §3's examples. */
export function buildBearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [`realm=${quoteHeaderValue(challenge.realm)}`];
  for (const name of ['error', 'error_description', 'scope'] as const) {
    const value = challenge[name];
    if (value !== undefined) params.push(`${name}=${quoteHeaderValue(value)}`);
  }
  return `Bearer ${params.join(', ')}`;
}
