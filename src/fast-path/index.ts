/**
 * The platform's opt-in fast paths: routes served on bare `node:http` ahead of an Express app,
 * with the app's own answers (test/fast-path/). Off by default: the sample reads as one Express
 * route and one zod schema per request; the control plane takes this path for exec and
 * broadcast only with RELAY_BARE_EXEC=on (docs/reference/configuration.md).
 */
export { serveBareJsonRoutes, tenantJsonRoutes } from './bare-json-routes';
export type { BareJsonRoute } from './bare-json-routes';
