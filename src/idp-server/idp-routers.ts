import { Router } from 'express';
import { OPENAPI_PATH, serveOpenApi } from '../http';
import { IDP_OPENAPI } from './idp-openapi';

/** The platform's routers plugged into the IdP (`createIdpApp`'s `routers`) as its process runs it: `/openapi.json`. */
export function idpRouters(): Router[] {
  return [Router().get(OPENAPI_PATH, serveOpenApi(IDP_OPENAPI))];
}
