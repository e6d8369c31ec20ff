/**
 * The credential part of an `Authorization: Basic …` header (RFC 7617 §2), or undefined
 * when the header is missing or uses another scheme. Scheme names are case-insensitive
 * (RFC 9110 §11.1), so `basic`, `Basic` and `BASIC` all match.
 */
export function basicCredential(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)[ \t]+(\S+)[ \t]*$/.exec(header);
  if (!match || match[1]!.toLowerCase() !== 'basic') return undefined;
  return match[2];
}

/**
 * Decodes an RFC 7617 `base64(user-id ":" password)` credential. The user-id cannot
 * contain a colon, so the split is at the first one (§2). Undefined when the value is
 * not canonical base64 or holds no colon.
 */
export function decodeBasicPair(credential: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credential) || credential.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
