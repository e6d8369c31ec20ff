import type { Config } from '../config';

/** One process of the stack: its entry module and the URL that says it is ready. */
export interface Component {
  readonly name: string;
  readonly label: string;
  /** Entry module relative to `src/` (or `dist/src/`), without extension. */
  readonly entry: string;
  readonly url: string;
  /** Path polled until it answers 200. */
  readonly readyPath: string;
}

/**
 * The stack in start order: each component only talks to those before it (the edge needs
 * the control plane's demo tenant, the apps need the IdP's JWKS and the edge).
 */
export function stackComponents(config: Config): Component[] {
  return [
    { name: 'idp', label: 'IdP', entry: 'idp/main', url: config.idp.url, readyPath: '/healthz' },
    { name: 'control-plane', label: 'control plane', entry: 'control-plane/main', url: config.controlPlane.url, readyPath: '/healthz' },
    { name: 'edge', label: 'edge authorizer', entry: 'edge/main', url: config.edge.url, readyPath: '/readyz' },
    { name: 'rbac-app', label: 'RBAC app', entry: 'apps/rbac/main', url: config.apps.rbacUrl, readyPath: '/healthz' },
    { name: 'todo-app', label: 'todo app', entry: 'apps/todo/main', url: config.apps.todoUrl, readyPath: '/healthz' },
  ];
}
