import type { DocumentedExtension } from '../openapi';
import { CONSOLE_ROUTES } from './console-openapi';
import { createConsoleRouter, type ConsoleDeps } from './console-routes';

/**
 * The console plugged into the control plane (`createControlPlaneApp`'s extensions): its JSON
 * API under `/console/api`, its page under `/console/` when given one, and both in the
 * control plane's `/openapi.json`.
 */
export function consoleExtension(deps: ConsoleDeps): DocumentedExtension {
  return { router: createConsoleRouter(deps), routes: CONSOLE_ROUTES };
}
