// The IdP's process (main.ts): the one place that plugs the platform into the IdP (its
// `/openapi.json`), as src/control-plane-server does for the control plane.
export { idpRouters } from './idp-routers';
export { IDP_OPENAPI, IDP_ROUTES } from './idp-openapi';
