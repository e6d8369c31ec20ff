/**
 * Extracts the bearer access token from a request, RFC 6750 §2.
 *
 * Outpost accepts the token only in the Authorization header (§2.1). The query parameter
 * (§2.3) and form body (§2.2) methods are refused with a clear message, and a token sent in
 * more than one way is an `invalid_request` (§2, "MUST NOT use more than one method").
 */
import { InvalidRequestError, UnauthorizedError, DEFAULT_REALM } from './bearer-errors';

/** The parts of an HTTP request the bearer extraction looks at; framework-neutral. */
export interface BearerRequest {
  /** Every Authorization header value received (Node's `headersDistinct.authorization`). */
  authorization: readonly string[] | undefined;
  /** Parsed query parameters, if any. */
  query?: unknown;
  /** Parsed body, if any. */
  body?: unknown;
  /** True when the body is `application/x-www-form-urlencoded` (the only §2.2 encoding). */
  formEncoded?: boolean;
}

// RFC 9110 §11.1 auth-scheme (a token) followed by the rest of the credentials. One or more
// spaces between them, on purpose: RFC 6750 §2.1 is `credentials = "Bearer" 1*SP b64token`, so
// `Bearer  <token>` is as legal as `Bearer <token>` (RFC 9110 §11.4 agrees: 1*SP).
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/;
// RFC 6750 §2.1 b64token: the only characters a bearer token may contain.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// A second credential naming the Bearer scheme after a comma, e.g. "Basic x, Bearer y".
const SECOND_BEARER = /,\s*bearer(?:\s|$)/i;

function hasParameter(source: unknown, name: string): boolean {
  return typeof source === 'object' && source !== null && Object.hasOwn(source, name);
}

/** Parses one Authorization header value; undefined when it holds no bearer credentials. */
function tokenFromHeader(value: string, realm: string): string | undefined {
  const match = CREDENTIALS.exec(value.trim());
  if (!match) throw new InvalidRequestError('the Authorization header is malformed', realm);
  const [, scheme, rest = ''] = match;
  if (scheme!.toLowerCase() !== 'bearer') {
    if (SECOND_BEARER.test(value)) {
      throw new InvalidRequestError('the Authorization header must hold exactly one credential', realm);
    }
    return undefined; // another scheme: no bearer credentials were sent (RFC 6750 §3.1)
  }
  if (!B64TOKEN.test(rest)) {
    throw new InvalidRequestError('the Authorization header must be "Bearer" followed by exactly one token', realm);
  }
  return rest;
}

/** The canonical form of bearer credentials: the scheme as RFC 6750 spells it and one space. */
const CANONICAL_PREFIX = 'Bearer ';

/**
 * Returns the single bearer token of a request.
 *
 * `known` may name tokens already extracted and verified (a verified-token cache): a header
 * of the canonical form `Bearer <token>` whose token is known skips the two pattern scans
 * over the whole token. That is the same answer: a known token matched the b64token rule
 * when it was first extracted, and `Bearer ` + a b64token is what the parse returns that
 * token for. Every other check — one header, no token in the query or body — still runs.
 *
 * @throws UnauthorizedError (401, bare challenge) when no bearer credentials are present.
 * @throws InvalidRequestError (400) for a malformed header, two Authorization headers,
 *   two schemes, or a token in the query string or form body.
 */
export function getBearerToken(request: BearerRequest, realm: string = DEFAULT_REALM, known?: (token: string) => boolean): string {
  const headers = request.authorization ?? [];
  if (headers.length > 1) {
    throw new InvalidRequestError('send exactly one Authorization header', realm);
  }
  const header = headers.length === 1 ? headers[0]! : '';
  const canonical = known !== undefined && header.startsWith(CANONICAL_PREFIX) ? header.slice(CANONICAL_PREFIX.length) : undefined;
  const fromHeader = canonical !== undefined && known!(canonical) ? canonical : header !== '' ? tokenFromHeader(header, realm) : undefined;
  const inQuery = hasParameter(request.query, 'access_token');
  const inBody = request.formEncoded === true && hasParameter(request.body, 'access_token');

  if (fromHeader !== undefined && (inQuery || inBody)) {
    throw new InvalidRequestError('the access token was sent two ways; send it only in the Authorization header', realm);
  }
  if (inQuery || inBody) {
    throw new InvalidRequestError('send the access token in the Authorization header, not the query or body', realm);
  }
  if (fromHeader === undefined) throw new UnauthorizedError(undefined, realm);
  return fromHeader;
}
