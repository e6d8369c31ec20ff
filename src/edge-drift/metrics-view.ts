import { createHash, timingSafeEqual } from 'node:crypto';
import { getBearerToken, InvalidTokenError } from '@outpost/express-authz';

/** The realm `/metrics` names in its challenges (its token is not an access token). */
export const METRICS_REALM = 'outpost-metrics';

/** What a `/metrics` caller sees: per-tenant series, or totals that name no tenant. */
export type MetricsView = 'per-tenant' | 'totals';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Which view of `/metrics` a request gets. The port is the one browsers and edges reach, so
 * tenant ids go only to the operator: no credentials get the totals; `Authorization: Bearer
 * <METRICS_TOKEN>` (RFC 6750 §2.1, compared in constant time over digests, so neither its
 * length nor its text leaks) gets the per-tenant series. Any other credential is refused
 * rather than quietly answered with the totals, so a misconfigured scraper notices: a wrong
 * token, or any token when none is configured, is 401 `invalid_token`; another scheme 401; a
 * malformed header 400 (RFC 6750 §3.1).
 */
export function metricsView(authorization: readonly string[] | undefined, token: string | undefined): MetricsView {
  const sent = (authorization ?? []).filter((value) => value !== '');
  if (sent.length === 0) return 'totals';
  const presented = getBearerToken({ authorization: sent }, METRICS_REALM);
  if (token === undefined || !timingSafeEqual(digest(presented), digest(token))) {
    throw new InvalidTokenError('the metrics token is not valid', METRICS_REALM);
  }
  return 'per-tenant';
}
