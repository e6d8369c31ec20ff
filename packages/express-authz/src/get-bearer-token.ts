import { DEFAULT_REALM, InvalidRequestError, UnauthorizedError } from './errors';

/** What the extraction reads of a request; framework-neutral. */
export interface BearerRequest {
  /** Every Authorization header value received (Node's `headersDistinct.authorization`). */
  authorization: readonly string[] | undefined;
  query?: unknown;
  body?: unknown;
  /** The body is `application/x-www-form-urlencoded` (RFC 6750 §2.2's only encoding). */
  formEncoded?: boolean;
}

// RFC 9110 §11.1 auth-scheme, then 1*SP (RFC 6750 §2.1: `Bearer  <token>` is legal too) and the rest.
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/; // RFC 6750 §2.1
const SECOND_BEARER = /,\s*bearer(?:\s|$)/i; // "Basic x, Bearer y"

const hasParameter = (source: unknown, name: string) => typeof source === 'object' && source !== null && Object.hasOwn(source, name);

/** One header value's bearer token; undefined for another scheme (no bearer credentials, RFC 6750 §3.1). */
function tokenFromHeader(value: string, realm: string): string | undefined {
  const match = CREDENTIALS.exec(value.trim());
  if (!match) throw new InvalidRequestError('the Authorization header is malformed', realm);
  const [, scheme, rest = ''] = match;
  if (scheme!.toLowerCase() !== 'bearer') {
    if (SECOND_BEARER.test(value)) throw new InvalidRequestError('the Authorization header must hold exactly one credential', realm);
    return undefined;
  }
  if (!B64TOKEN.test(rest)) throw new InvalidRequestError('the Authorization header must be "Bearer" followed by exactly one token', realm);
  return rest;
}

/**
 * The request's one bearer token, from the Authorization header only (RFC 6750 §2.1): a token in
 * the query or a form body is refused, and so is one sent two ways (§2: "MUST NOT").
 *
 * `known` names tokens already verified (the cache): `Bearer <token>` with a known token skips
 * the two pattern scans — the same answer, since a known token passed them once. Every other
 * check still runs.
 *
 * @throws UnauthorizedError (401, bare challenge) when no bearer credentials are present.
 * @throws InvalidRequestError (400) for a malformed header, two headers or schemes, a token in the query or body.
 */
export function getBearerToken(request: BearerRequest, realm: string = DEFAULT_REALM, known?: (token: string) => boolean): string {
  const headers = request.authorization ?? [];
  if (headers.length > 1) throw new InvalidRequestError('send exactly one Authorization header', realm);
  const header = headers[0] ?? '';
  const canonical = known !== undefined && header.startsWith('Bearer ') ? header.slice(7) : undefined;
  const fromHeader = canonical !== undefined && known!(canonical) ? canonical : header !== '' ? tokenFromHeader(header, realm) : undefined;
  if (hasParameter(request.query, 'access_token') || (request.formEncoded === true && hasParameter(request.body, 'access_token'))) {
    const twice = fromHeader !== undefined;
    throw new InvalidRequestError(twice ? 'the access token was sent two ways; send it only in the Authorization header' : 'send the access token in the Authorization header, not the query or body', realm);
  }
  if (fromHeader === undefined) throw new UnauthorizedError(undefined, realm);
  return fromHeader;
}
