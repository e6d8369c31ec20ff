import type { Router } from 'express';
import { IDP_OPENAPI, openApiRouter } from '../openapi';

/** The platform's routers plugged into the IdP (`createIdpApp`'s `routers`) as its process runs it: `/openapi.json`. */
export function idpRouters(): Router[] {
  return [openApiRouter(IDP_OPENAPI)];
}
