/** Reads one cookie from a `Cookie` header (RFC 6265 §5.4); undefined when absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * A `Set-Cookie` value for the IdP's own cookies: `HttpOnly` (no script reads it),
 * `SameSite=Lax` (not sent on cross-site POSTs, still sent when a client redirects the
 * browser to /authorize), `Secure` when the IdP is served over https.
 */
export function serializeCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
