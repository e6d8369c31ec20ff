/**
 * Every error code an Outpost HTTP API answers with: code → status and message (fastify's one
 * `errors` table). Handlers build their errors from it (`httpError`, `errorInShape` and the
 * classes of `http-error.ts` take a code of this table, so an unknown code is a type error),
 * the OpenAPI documents take their error responses from it (`apiErrors`), and the API reference
 * lists every code of it (docs/reference/api.md, "Error codes", checked by
 * test/docs/error-codes.test.ts). A message given at the site replaces the default when it
 * carries detail (a limit, a name); the code and status never change.
 */
import { AUTHZ_ERROR_CODES, type ErrorCodeEntry } from '@outpost/express-authz';

export type { ErrorCodeEntry } from '@outpost/express-authz';

/** The codes of every component beyond the middleware package's own. */
const OUTPOST_ERROR_CODES = {
  // Every component (src/http, src/sql)
  bad_request: { status: 400, message: 'the request is malformed' },
  unknown_query_parameter: { status: 400, message: 'a write takes no query parameters' },
  not_found: { status: 404, message: 'no route for this method and path' },
  conflict: { status: 409, message: 'the resource changed meanwhile' },
  payload_too_large: { status: 413, message: 'the request body is too large' },
  unsupported_media_type: { status: 415, also: [400], message: 'unsupported body encoding' },
  server_error: { status: 500, also: [507], message: 'internal error' },
  storage_unavailable: { status: 503, message: 'storage is busy or unavailable; retry shortly', retryAfter: 1 },
  insufficient_storage: { status: 507, message: 'storage is full' },
  // IdP (OAuth shape; the last three are the OIDC provider's own)
  invalid_request: { ...AUTHZ_ERROR_CODES.invalid_request, also: [405, 415] }, // the token endpoint's wrong method and media type
  invalid_grant: { status: 401, also: [400], message: 'wrong username or password' },
  unsupported_grant_type: { status: 400, message: 'only the password grant is supported' },
  too_many_requests: { status: 429, message: 'too many failed sign-in attempts' },
  invalid_scope: { status: 400, message: 'the client may not ask for this scope' },
  invalid_target: { status: 400, message: 'the client may not ask for this resource' },
  invalid_client: { status: 401, message: 'unknown client, or wrong client secret' },
  // Sample apps
  invalid_body: { status: 400, message: 'the body does not match the shape' },
  invalid_query: { status: 400, message: 'a query parameter is not one the route takes' },
  // Edge authorizer
  invalid_freshness: { status: 400, message: 'a malformed Outpost-Min-* header' },
  invalid_explain: { status: 400, message: 'Outpost-Explain takes "reasons"' },
  invalid_identity: { status: 400, message: 'the identity is missing, or not a valid access token' },
  unknown_policy: { status: 404, also: [400], message: 'no policy of that name (at the edge, 400: not the policy this edge serves)' },
  unknown_decision: { status: 400, message: 'a decision other than "allowed"' },
  unknown_subject_type: { status: 400, message: 'a subject type other than "user" or "identity"' },
  invalid_page_token: { status: 400, message: 'page.token is not a token this PDP issued for this request' },
  not_fresh: { status: 409, message: 'the caller asked for newer state than the control plane has' },
  freshness_unavailable: { status: 503, message: 'the edge could not catch up in time', retryAfter: 1 },
  not_ready: { status: 503, message: 'no policy image or directory loaded yet' },
  jwks_unavailable: { status: 503, message: 'the identity provider keys are unavailable' },
  // Control plane: admin and edge APIs
  invalid_policy: { status: 400, message: 'the policy text or schema is invalid' },
  policy_tests_failed: { status: 400, also: [502], message: "a case of the image's own tests decided otherwise than expected" },
  signature_required: { status: 400, message: 'this tenant has registered signing keys: push the image signed' },
  invalid_signature: { status: 400, message: 'the policy image signature does not verify with any trusted key' },
  unknown_key: { status: 404, message: 'no signing key with that id' },
  unknown_image: { status: 404, message: 'no image with that digest under that name' },
  quota_exceeded: { status: 409, message: "the tenant's images or signing keys are at their limit" },
  stale_signature: { status: 409, message: 'a signed push must carry a version above the highest accepted for the policy' },
  policy_mismatch: { status: 409, message: 'the instance serves another policy' },
  no_image: { status: 404, also: [502], message: 'no policy image yet' },
  no_directory: { status: 404, also: [409, 502], message: 'no directory for this tenant' },
  resync_required: { status: 410, also: [502], message: 'the change log does not reach back that far; fetch the full directory' },
  // Control plane: console API
  tenant_not_found: { status: 404, message: 'no such tenant among your accounts' },
  member_not_found: { status: 404, message: 'no such member' },
  unknown_user: { status: 404, message: 'no such user in the directory' },
  unknown_role: { status: 400, message: 'no such role in the directory' },
  duplicate_email: { status: 400, message: 'the e-mail belongs to another user' },
  duplicate_identity: { status: 400, message: 'the identity belongs to another user' },
  too_many_connections: { status: 409, message: 'the tenant has as many connections as it may' },
  last_owner: { status: 409, message: 'an organization keeps at least one owner' },
  personal_account: { status: 409, message: 'a personal account has exactly one member, its owner' },
  too_many_members: { status: 409, message: 'the tenant has as many members as it may' },
  too_many_streams: { status: 429, message: 'too many decision streams are open; try again shortly', retryAfter: 5 },
  // Relay: exec, broadcast, registrations (and the codes an edge reports, passed on as 502)
  unknown_command: { status: 400, message: 'a command other than discovery or sync_edge_directory' },
  instance_not_found: { status: 404, message: 'no instance with this id is registered for the tenant' },
  instance_not_connected: { status: 409, message: 'the instance is registered but not connected' },
  instance_disconnected: { status: 409, message: 'the instance disconnected before confirming the command' },
  instance_connected: { status: 409, message: 'the instance is connected; stop its edge before releasing its id' },
  too_many_edges: { status: 409, message: 'more connected edges match than one broadcast may reach' },
  too_many_pending: { status: 429, message: 'too many commands are waiting for this instance', retryAfter: 1 },
  too_many_broadcasts: { status: 429, message: 'the tenant already runs as many broadcasts as it may', retryAfter: 1 },
  edge_error: { status: 502, message: 'the edge reported a failure' },
  invalid_image: { status: 502, message: 'the edge refused the policy image and kept its last good one' },
  sync_failed: { status: 502, message: 'the edge failed to sync' },
  sample_failed: { status: 502, message: 'the edge could not read its decision sample' },
  try_failed: { status: 502, message: 'the edge could not decide the tried request' },
  control_plane_unavailable: { status: 502, message: 'the edge could not reach the control plane' },
  bad_response: { status: 502, message: 'the control plane answered the edge with something unexpected' },
  response_too_large: { status: 502, message: 'the control plane answered the edge with more than it takes' },
  relay_closing: { status: 503, message: 'the relay is shutting down' },
  routing_unavailable: { status: 503, message: 'routing between control-plane nodes is unavailable', retryAfter: 1 },
  edge_timeout: { status: 504, message: 'the edge did not confirm the command in time' },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

/** Every code, the middleware package's included. */
export const ERROR_CODES = { ...AUTHZ_ERROR_CODES, ...OUTPOST_ERROR_CODES } as const;

type Table = typeof ERROR_CODES;

/** A code of {@link ERROR_CODES}. */
export type ErrorCode = keyof Table;

/** The statuses a code may be answered with. */
export type StatusOf<C extends ErrorCode> = Extract<Table[C]['status'] | (Table[C] extends { readonly also: readonly (infer S)[] } ? S : never), number>;

/** The codes that may be answered with `status`. */
export type CodeAt<S extends number> = { [C in ErrorCode]: S extends StatusOf<C> ? C : never }[ErrorCode];

/** Every status `code` may be answered with, the usual one first. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const entry: ErrorCodeEntry = ERROR_CODES[code];
  return [entry.status, ...(entry.also ?? [])];
}

/** Whether `code` (from a peer, say) is a code of the table that `status` may carry. */
export function isCodeAt<S extends number>(code: string, status: S): code is CodeAt<S> {
  return Object.hasOwn(ERROR_CODES, code) && statusesOf(code as ErrorCode).includes(status);
}
