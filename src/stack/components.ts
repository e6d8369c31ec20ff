import type { Config } from '../config';

/** What an HTTP probe of a port saw: enough to tell an Outpost component from another program. */
export interface ProbeAnswer {
  readonly status: number;
  readonly wwwAuthenticate: string | null;
  readonly body: unknown;
}

/** One process of the stack: its entry module, where it listens and how to recognise it. */
export interface Component {
  readonly name: string;
  readonly label: string;
  /** Entry module relative to `src/` (or `dist/src/`), without extension. */
  readonly entry: string;
  /** The URL shown to people (may sit behind a proxy). */
  readonly url: string;
  /** The port the process listens on, and the variable that sets it. */
  readonly port: number;
  readonly portVar: string;
  /** Path polled until it answers 200. */
  readonly readyPath: string;
  /** A request only this component answers this way, to recognise a stack already running. */
  readonly identity: { readonly path: string; readonly matches: (answer: ProbeAnswer) => boolean };
  /** Variables set for this process only, over the launcher's environment (a cluster node's port and name). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The components (by `name`) that must answer their ready path before this one is started;
   * unset, the one listed before it. Components whose waits end together start together.
   */
  readonly waitsFor?: readonly string[];
}

const field = (body: unknown, name: string): unknown =>
  body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

// The sample apps challenge a token-less call with the realm every Outpost app uses (RFC 6750 §3).
const bearerChallenge = (path: string) => ({
  path,
  matches: (a: ProbeAnswer) => a.status === 401 && /^Bearer realm="outpost"/.test(a.wwwAuthenticate ?? ''),
});

/**
 * The stack in start order: each component only talks to those before it (the edge needs
 * the control plane's demo tenant; the apps need the IdP's JWKS, and their embedded edges
 * the control plane, or the sidecar edge under AUTHORIZER=edge). The apps are those of
 * `apps.json` (`config.apps.list`). Only what a component needs at start is waited for: the
 * IdP and the control plane start together (the control plane fetches the IdP's JWKS when a
 * console user first signs in), then the edge and every app together, once the control plane
 * has written the demo tenant they connect with — each of them compiles Cedar and runs its
 * image's tests (~0.5 s of CPU, ~1.5 s before V8's default tiering was kept), so one after
 * another they were most of a start (docs/architecture.md, "Components").
 */
export function stackComponents(config: Config): Component[] {
  return [
    {
      name: 'idp', label: 'IdP', entry: 'idp-server/main', url: config.idp.url,
      port: config.idp.port, portVar: 'IDP_PORT', readyPath: '/healthz',
      identity: {
        path: '/.well-known/openid-configuration',
        matches: (a) => a.status === 200 && String(field(a.body, 'token_endpoint')).endsWith('/api/v1/idp/token'),
      },
    },
    {
      name: 'control-plane', label: 'control plane', entry: 'control-plane-server/main', url: config.controlPlane.url,
      port: config.controlPlane.port, portVar: 'CONTROL_PLANE_PORT', readyPath: '/healthz', waitsFor: [],
      identity: {
        path: '/api/v2/admin/directory',
        matches: (a) => a.status === 401 && field(a.body, 'code') === 'unauthorized',
      },
    },
    {
      name: 'edge', label: 'edge authorizer', entry: 'sidecar/main', url: config.edge.url,
      port: config.edge.port, portVar: 'EDGE_PORT', readyPath: '/readyz', waitsFor: ['control-plane'],
      identity: { path: '/readyz', matches: (a) => typeof field(a.body, 'policy') === 'boolean' },
    },
    // The apps of apps.json, in its order: `<name>-app`, recognised by the challenge at their probe path.
    ...config.apps.list.map((app): Component => ({
      name: `${app.name}-app`, label: app.label, entry: app.entry, url: app.url,
      port: app.port, portVar: app.vars.port, readyPath: '/readyz',
      waitsFor: config.apps.authorizer === 'edge' ? ['control-plane', 'edge'] : ['control-plane'],
      identity: bearerChallenge(app.probe),
    })),
  ];
}

/** Where the launcher reaches a component it started: its own listening address, not the public URL. */
export function localBase(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
