// The relay management API's paths and page sizes, apart from its router: the launcher lists
// registrations with them and would otherwise load the whole relay (Express, ioredis) to start.

/** docs/service-interface.md §4.3. */
export const INSTANCE_REGISTRATIONS_PATH = '/api/v2/management/control_plane/instance_registrations';
/** The relay's drift gauges (Prometheus text): totals for anyone, per tenant with the metrics token. */
export const METRICS_PATH = '/metrics';
/** Registrations per page of `instance_registrations`: the default and the most a caller may ask for. */
export const REGISTRATIONS_PAGE = Object.freeze({ defaultSize: 100, maxSize: 1000 });
/** The tenant-wide command beside §4.2 (docs/reference/api.md, "Broadcast"), served by the broadcast plug-in (src/relay-broadcast). */
export const BROADCAST_PATH = '/api/v2/management/control_plane/broadcast';
/**
 * A broadcast's bounds (docs/reference/limits.md): the connected edges one broadcast may
 * reach (more is 409 `too_many_edges`, sent to none: narrow it with a filter), and the
 * broadcasts one tenant may run at once on one node (more is 429 `too_many_broadcasts`).
 * Its deadline is the exec timeout (`RELAY_EXEC_TIMEOUT_MS`).
 */
export const BROADCAST_LIMITS = Object.freeze({ maxEdges: 10_000, maxConcurrentPerTenant: 4 });
