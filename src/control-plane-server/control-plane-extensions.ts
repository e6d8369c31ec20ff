import { consoleExtension, type ConsoleDeps } from '../console';
import type { ControlPlaneExtension, ControlPlaneStore } from '../control-plane';
import { decisionStoreExtension, openDecisionRepository } from '../decision-store';
import { controlPlaneOpenApiExtension } from '../openapi';
import { signingKeysExtension } from '../signing-keys';

/**
 * The platform's extensions of the control plane's app, as its process plugs them in:
 * `/openapi.json` (src/openapi), describing the control plane and the areas plugged in beside it,
 * the admin API's decision records (src/decision-store), image-signing keys (src/signing-keys,
 * whose push check the app takes as `pushCheck`) and, given its options, the console (src/console).
 */
export function controlPlaneExtensions(store: ControlPlaneStore, console?: Omit<ConsoleDeps, 'store'>): ControlPlaneExtension[] {
  const areas = [decisionStoreExtension(store, openDecisionRepository(store)), signingKeysExtension(store), ...(console ? [consoleExtension({ store, ...console })] : [])];
  return [controlPlaneOpenApiExtension(areas), ...areas];
}
