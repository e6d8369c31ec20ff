import { CONSOLE_ROUTES } from '../../src/console/console-openapi';
import { DECISION_STORE_ROUTES } from '../../src/decision-store/decision-store-extension';
import { SIGNING_KEY_ROUTES } from '../../src/signing-keys/signing-keys-extension';
import { CONTROL_PLANE_ROUTES as OWN_ROUTES, controlPlaneOpenApi } from '../../src/openapi';

/** What src/control-plane-server plugs into the control plane, in its order: decision records, then the console. */
const EXTENSION_ROUTES = [...DECISION_STORE_ROUTES, ...SIGNING_KEY_ROUTES, ...CONSOLE_ROUTES];

/**
 * Every route the control plane's process serves (src/control-plane-server): the control
 * plane's own and the relay's, then those of the extensions it plugs in.
 */
export const CONTROL_PLANE_ROUTES = [...OWN_ROUTES, ...EXTENSION_ROUTES];

/** The document that process serves at `/openapi.json`. */
export const CONTROL_PLANE_OPENAPI = controlPlaneOpenApi(EXTENSION_ROUTES);
