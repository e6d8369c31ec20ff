/**
 * The error codes this package answers with, each with its HTTP status and the message a
 * refusal carries when it names no other (fastify's one `errors` table). The classes of
 * `bearer-errors.ts`, `authorizer.ts` and `require-permission.ts` take their status from here;
 * an application keeps its own codes in a table that includes this one.
 */

/** One code: the status it is answered with (the usual one first, then any other) and its message. */
export interface ErrorCodeEntry {
  readonly status: number;
  /** Other statuses one route or shape answers the code with (rare: say where at the site). */
  readonly also?: readonly number[];
  /** The public message when the site gives none; also what the OpenAPI documents and the API reference say. */
  readonly message: string;
  /** Seconds the caller is asked to wait (`Retry-After`), when every answer with the code says so. */
  readonly retryAfter?: number;
}

export const AUTHZ_ERROR_CODES = {
  unauthorized: { status: 401, message: 'an access token is required: send Authorization: Bearer <access_token>' },
  invalid_request: { status: 400, message: 'the request is malformed (RFC 6750 §3.1, RFC 6749 §5.2)' },
  invalid_token: { status: 401, message: 'the access token is expired, malformed, badly signed or meant for someone else' },
  insufficient_scope: { status: 403, message: 'the access token lacks the scope the route needs' },
  temporarily_unavailable: { status: 503, message: 'the signing keys of the identity provider are unavailable; try again later' },
  forbidden: { status: 403, message: 'Forbidden by policy' },
  authorizer_unavailable: { status: 503, message: 'the authorizer is unavailable; try again shortly' },
  invalid_property: { status: 400, message: 'a resource property is not of the type the policy schema declares' },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

/** A code of {@link AUTHZ_ERROR_CODES}. */
export type AuthzErrorCode = keyof typeof AUTHZ_ERROR_CODES;

/** The status {@link AUTHZ_ERROR_CODES} gives `code`. */
export function authzStatus(code: AuthzErrorCode): number {
  return AUTHZ_ERROR_CODES[code].status;
}
