import { Router } from 'express';
import { OPENAPI_PATH, serveOpenApi, type buildOpenApiDocument } from '../http';

/** A router that serves `document` at `GET /openapi.json`: what this area plugs into a component's hook. */
export function openApiRouter(document: ReturnType<typeof buildOpenApiDocument>): Router {
  return Router().get(OPENAPI_PATH, serveOpenApi(document));
}
