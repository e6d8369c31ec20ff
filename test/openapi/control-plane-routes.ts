import { CONSOLE_ROUTES } from '../../src/console/console-openapi';
import { CONTROL_PLANE_ROUTES as OWN_ROUTES, controlPlaneOpenApi } from '../../src/control-plane/control-plane-openapi';

/**
 * Every route the control plane's process serves (src/control-plane-server): the control
 * plane's own and the relay's, then the console's, which is plugged in as an extension.
 */
export const CONTROL_PLANE_ROUTES = [...OWN_ROUTES, ...CONSOLE_ROUTES];

/** The document that process serves at `/openapi.json`. */
export const CONTROL_PLANE_OPENAPI = controlPlaneOpenApi(CONSOLE_ROUTES);
