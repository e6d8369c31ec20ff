import { consoleExtension, type ConsoleDeps } from '../console';
import type { ControlPlaneExtension, ControlPlaneStore } from '../control-plane';
import { decisionStoreExtension, openDecisionRepository } from '../decision-store';
import { signingKeysExtension } from '../signed-images';

/**
 * The platform's extensions of the control plane's app, as its process plugs them in: the
 * admin API's decision records (src/decision-store) and image-signing keys (src/signed-images,
 * whose push check the app takes as `pushCheck`) and, given its options, the console (src/console).
 */
export function controlPlaneExtensions(store: ControlPlaneStore, console?: Omit<ConsoleDeps, 'store'>): ControlPlaneExtension[] {
  return [
    decisionStoreExtension(store, openDecisionRepository(store)),
    signingKeysExtension(store),
    ...(console ? [consoleExtension({ store, ...console })] : []),
  ];
}
