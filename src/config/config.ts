import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { authorizerKind, envSchema, logLevel } from './env-schema';
import { findProjectRoot } from './project-root';

/** The parsed, frozen configuration shared by every component. */
export interface Config {
  readonly host: string;
  readonly projectRoot: string;
  readonly dataDir: string;
  readonly logLevel: z.infer<typeof logLevel>;
  readonly idp: {
    readonly port: number;
    readonly url: string;
    readonly issuer: string;
    readonly accessTokenTtl: number;
    readonly idTokenTtl: number;
    readonly apiAudience: string;
    readonly clientId: string;
    readonly keyRotationOverlap: number;
    readonly maxLoginFailures: number;
    readonly loginFailureWindow: number;
    /** Browser origins allowed to call the token endpoint (the todo page); exact matches. */
    readonly corsOrigins: readonly string[];
    /** Public clients of the authorization code flow, with their exact redirect URIs. */
    readonly clients: readonly OAuthClient[];
  };
  readonly apps: {
    readonly rbacPort: number;
    readonly rbacUrl: string;
    readonly todoPort: number;
    readonly todoUrl: string;
    readonly rbacPolicy: string;
    readonly authorizer: z.infer<typeof authorizerKind>;
    readonly clockTolerance: number;
  };
  readonly controlPlane: {
    readonly port: number;
    readonly url: string;
    /** How long exec waits for the edge's confirmation before answering 504. */
    readonly execTimeoutMs: number;
    /** Ping period; a peer silent for a whole period is dropped. */
    readonly heartbeatMs: number;
  };
  readonly edge: {
    readonly port: number;
    readonly url: string;
    readonly discoveryInterval: number;
    readonly directorySyncInterval: number;
    readonly fullSyncInterval: number;
    /** Connection credentials; when absent the edge reads `<dataDir>/demo-tenant.json`. */
    readonly connectionId: string | undefined;
    readonly connectionSecret: string | undefined;
  };
  /**
   * Tenant credentials for the scripts (relay-exec, policy, directory…); when unset they
   * read `<dataDir>/demo-tenant.json`.
   */
  readonly tenantCredentials: {
    readonly tenantId: string | undefined;
    readonly discoveryApiKey: string | undefined;
    readonly adminApiKey: string | undefined;
  };
  /** The directory seed file shared by the IdP (users) and the directory (roles). */
  readonly directorySeedFile: string;
  /** Folder holding one sub-folder per policy (`policies/rbac`, …). */
  readonly policiesDir: string;
}

/** A registered public client (RFC 6749 §2.1): no secret, PKCE required, exact redirect URIs. */
export interface OAuthClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  /** Where sign-out may send the browser back to (OIDC RP-Initiated Logout §3). */
  readonly postLogoutRedirectUris: readonly string[];
}

/** The todo page's `client_id` at the IdP. */
export const TODO_CLIENT_ID = 'outpost-todo';
/** The control-plane console's `client_id` at the IdP. */
export const CONSOLE_CLIENT_ID = 'outpost-console';

/** Raised with every problem found in the environment at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once into a frozen {@link Config}. The only place in Outpost
 * that reads `process.env`; everything else receives the result.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  // A URL set explicitly wins (a proxy in front); otherwise it follows the port.
  const authUrl = e.AUTH_URL ?? localUrl(e.IDP_PORT);
  const todoUrl = e.TODO_URL ?? localUrl(e.TODO_PORT);
  const controlPlaneUrl = e.RELAY_URL ?? localUrl(e.CONTROL_PLANE_PORT);
  const projectRoot = findProjectRoot();
  const config: Config = {
    host: e.OUTPOST_HOST,
    projectRoot,
    dataDir: isAbsolute(e.OUTPOST_DATA_DIR) ? e.OUTPOST_DATA_DIR : resolve(projectRoot, e.OUTPOST_DATA_DIR),
    logLevel: e.LOG_LEVEL,
    idp: {
      port: e.IDP_PORT,
      url: authUrl,
      issuer: e.IDP_ISSUER ?? authUrl,
      accessTokenTtl: e.ACCESS_TOKEN_TTL,
      idTokenTtl: e.ID_TOKEN_TTL,
      apiAudience: e.API_AUDIENCE,
      clientId: e.DEMO_CLIENT_ID,
      keyRotationOverlap: e.KEY_ROTATION_OVERLAP,
      maxLoginFailures: e.LOGIN_MAX_FAILURES,
      loginFailureWindow: e.LOGIN_FAILURE_WINDOW,
      corsOrigins: (e.IDP_CORS_ORIGINS ?? new URL(todoUrl).origin)
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      clients: [
        // The todo page handles the callback on its own page; the console at /console/.
        { clientId: TODO_CLIENT_ID, redirectUris: [`${todoUrl}/`], postLogoutRedirectUris: [`${todoUrl}/`] },
        {
          clientId: CONSOLE_CLIENT_ID,
          redirectUris: [`${controlPlaneUrl}/console/callback`],
          postLogoutRedirectUris: [`${controlPlaneUrl}/console/`],
        },
      ],
    },
    apps: {
      rbacPort: e.RBAC_PORT,
      rbacUrl: e.APP_URL ?? localUrl(e.RBAC_PORT),
      todoPort: e.TODO_PORT,
      todoUrl,
      rbacPolicy: e.RBAC_POLICY,
      authorizer: e.AUTHORIZER,
      clockTolerance: e.CLOCK_TOLERANCE,
    },
    controlPlane: {
      port: e.CONTROL_PLANE_PORT,
      url: controlPlaneUrl,
      execTimeoutMs: e.RELAY_EXEC_TIMEOUT_MS,
      heartbeatMs: e.RELAY_HEARTBEAT_MS,
    },
    edge: {
      port: e.EDGE_PORT,
      url: e.EDGE_URL ?? localUrl(e.EDGE_PORT),
      discoveryInterval: e.DISCOVERY_INTERVAL,
      directorySyncInterval: e.DIRECTORY_SYNC_INTERVAL,
      fullSyncInterval: e.FULL_SYNC_INTERVAL,
      connectionId: e.EDGE_CONNECTION_ID,
      connectionSecret: e.EDGE_CONNECTION_SECRET,
    },
    tenantCredentials: {
      tenantId: e.OUTPOST_TENANT_ID,
      discoveryApiKey: e.OUTPOST_DISCOVERY_API_KEY,
      adminApiKey: e.OUTPOST_ADMIN_API_KEY,
    },
    directorySeedFile: resolve(projectRoot, 'data', 'citadel-directory.json'),
    policiesDir: resolve(projectRoot, 'policies'),
  };
  return deepFreeze(config);
}

function localUrl(port: number): string {
  return `http://localhost:${port}`;
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}
