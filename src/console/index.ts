// The control plane's console (docs/reference/api.md, Console API): its JSON API for members
// of a tenant, its page, and their OpenAPI routes, plugged into the control plane as an
// extension (`consoleExtension`) by the process that runs it (src/control-plane-server).
export { consoleExtension } from './console-extension';
export type { ConsoleAuthOptions } from './require-console-user';
export type { ConsoleDeps } from './console-routes';
export { consolePublicDir, consolePageRouter } from './console-page';
