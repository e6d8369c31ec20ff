import type { ControlPlaneExtension } from '../control-plane';
import { controlPlaneOpenApi } from './control-plane-openapi';
import type { ApiRoute } from '../http';
import { openApiRouter } from './openapi-router';

/** A platform area's extension of the control plane, with the description of its routes for the control plane's document. */
export interface DocumentedExtension extends ControlPlaneExtension {
  readonly routes: readonly ApiRoute[];
}

/**
 * `/openapi.json` plugged into the control plane (`createControlPlaneApp`'s extensions): the
 * document of its own routes, the relay's, then those of `extensions`, the areas plugged in
 * beside it. Without it the control plane serves no document.
 */
export function controlPlaneOpenApiExtension(extensions: readonly DocumentedExtension[]): ControlPlaneExtension {
  return { router: openApiRouter(controlPlaneOpenApi(extensions.flatMap((extension) => extension.routes))) };
}
