// The relay management API's paths and page sizes, apart from its router: the launcher lists
// registrations with them and would otherwise load the whole relay (Express, ioredis) to start.

/** docs/service-interface.md §4.3. */
export const INSTANCE_REGISTRATIONS_PATH = '/api/v2/management/control_plane/instance_registrations';
/** The relay's drift gauges (Prometheus text): totals for anyone, per tenant with the metrics token. */
export const METRICS_PATH = '/metrics';
/** Registrations per page of `instance_registrations`: the default and the most a caller may ask for. */
export const REGISTRATIONS_PAGE = Object.freeze({ defaultSize: 100, maxSize: 1000 });

