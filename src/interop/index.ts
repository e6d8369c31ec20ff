/**
 * `npm run interop`: an AuthZEN PDP per OpenID AuthZEN interop scenario, built from the
 * stack's own control plane, policy image, directory and edge authorizer.
 */
export { INTEROP_SCENARIOS, findInteropScenario } from './interop-scenarios';
export { startInteropPdp } from './start-interop-pdp';
export type { InteropPdp } from './start-interop-pdp';
