import { consoleExtension, type ConsoleDeps } from '../console';
import type { ControlPlaneExtension, ControlPlaneStore } from '../control-plane';
import { decisionStoreExtension, openDecisionRepository } from '../decision-store';

/**
 * The platform's extensions of the control plane's app, as its process plugs them in: the
 * admin API's decision records (src/decision-store) and, given its options, the console
 * (src/console).
 */
export function controlPlaneExtensions(store: ControlPlaneStore, console?: Omit<ConsoleDeps, 'store'>): ControlPlaneExtension[] {
  return [decisionStoreExtension(store, openDecisionRepository(store)), ...(console ? [consoleExtension({ store, ...console })] : [])];
}
