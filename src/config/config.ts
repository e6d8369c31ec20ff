import { resolve } from 'node:path';
import { deepFreeze, type DeepReadonly } from '../cache';
import { appEnvShape, readAppList, toAppSettings, type AppListEntry } from './app-list';
import { envSchema, type Env } from './env-schema';
import { findProjectRoot } from './project-root';

/**
 * The parsed, frozen configuration shared by every component: the environment schema's
 * output shaped by component. Its type is derived from {@link toConfig}, so a variable is
 * described once (in `env-schema.ts`) and mapped once (here).
 *
 * One unit per kind: every duration in `Config` is in seconds (token lifetimes, windows,
 * timers, timeouts alike), whatever unit its environment variable is written in; components
 * convert at their own boundary (Node timers take milliseconds).
 */
export type Config = DeepReadonly<ReturnType<typeof toConfig>>;

/** A registered public client (RFC 6749 §2.1): no secret, PKCE required, exact redirect URIs. */
export interface OAuthClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  /** Where sign-out may send the browser back to (OIDC RP-Initiated Logout §3). */
  readonly postLogoutRedirectUris: readonly string[];
  /**
   * `aud` of the access tokens issued to this client, naming the one API they are for;
   * default the sample API's (`API_AUDIENCE`).
   */
  readonly audience?: string;
}

/** The todo page's `client_id` at the IdP. */
export const TODO_CLIENT_ID = 'outpost-todo';
/** The control-plane console's `client_id` at the IdP. */
export const CONSOLE_CLIENT_ID = 'outpost-console';
/**
 * The control plane's audience: `aud` of the console's access tokens, and the only audience
 * the console API accepts, so a token for the sample API is refused there (and vice versa).
 */
export const CONTROL_PLANE_AUDIENCE = 'urn:outpost:control-plane';

/** Raised with every problem found in the environment at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once into a frozen {@link Config}. The only place in Outpost
 * that reads `process.env`; everything else receives the result. The apps are those of
 * `<projectRoot>/apps.json`, each with its own variables (`app-list.ts`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, projectRoot: string = findProjectRoot()): Config {
  // apps.json adds each listed app's variables to the schema; its own problems are reported with the rest.
  const list = readAppList(projectRoot);
  const schema = envSchema.extend(appEnvShape(list.apps));
  const relevant = Object.fromEntries(
    Object.keys(schema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = schema.safeParse(relevant);
  const problems = [...list.problems, ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  // The static part of the schema types Env; the apps' variables are read by name (`toAppSettings`).
  // The default written out (as .env.example has it) is still the default: a PostgreSQL stack moves beside it.
  const data = parsed.data as Env;
  const dataDirSet = relevant.OUTPOST_DATA_DIR !== undefined && resolve(projectRoot, data.OUTPOST_DATA_DIR) !== resolve(projectRoot, DEFAULT_DATA_DIR);
  return deepFreeze(toConfig(data, projectRoot, dataDirSet, list.apps));
}

/** `OUTPOST_DATA_DIR`'s default, from the schema. */
const DEFAULT_DATA_DIR: string = envSchema.shape.OUTPOST_DATA_DIR.parse(undefined);

/**
 * The folder a PostgreSQL stack (`DATABASE_URL` set, `OUTPOST_DATA_DIR` unset or its default)
 * keeps its files in, under the default data directory: its demo tenant belongs to the
 * PostgreSQL database, and writing it next to the SQLite stack's would overwrite the only
 * copy of that one's keys.
 */
export const POSTGRES_DATA_DIR = 'postgres';

/** Why the data directory is the one it is: the banner says it, the scripts' hints use it. */
export type DataDirSource = 'OUTPOST_DATA_DIR' | 'default' | 'DATABASE_URL';

/** Shapes the parsed environment by component; every URL not set explicitly follows its port. */
function toConfig(e: Env, projectRoot: string, dataDirSet: boolean, appList: readonly AppListEntry[]) {
  // A URL set explicitly wins (a proxy in front); otherwise it follows the port.
  const authUrl = e.AUTH_URL ?? localUrl(e.IDP_PORT);
  const todoUrl = e.TODO_URL ?? localUrl(e.TODO_PORT);
  const controlPlaneUrl = e.RELAY_URL ?? localUrl(e.CONTROL_PLANE_PORT);
  const consoleUrl = `${controlPlaneUrl}/console/`;
  const dataDirSource: DataDirSource = dataDirSet ? 'OUTPOST_DATA_DIR' : e.DATABASE_URL !== undefined ? 'DATABASE_URL' : 'default';
  const dataDir = resolve(projectRoot, e.OUTPOST_DATA_DIR, dataDirSource === 'DATABASE_URL' ? POSTGRES_DATA_DIR : '');
  return {
    host: e.OUTPOST_HOST,
    projectRoot,
    /** `OUTPOST_DATA_DIR`; unset, `.data`, or `.data/postgres` with `DATABASE_URL` (one engine's demo state never overwrites another's). */
    dataDir,
    dataDirSource,
    logLevel: e.LOG_LEVEL,
    /** `STACK_START_TIMEOUT`: how long the launcher waits in all for a component that keeps working. */
    stackStartTimeout: e.STACK_START_TIMEOUT,
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
      /** Skew allowed on token times where the IdP checks its own tokens (/userinfo), as the apps allow. */
      clockTolerance: e.CLOCK_TOLERANCE,
      /** Browser origins allowed to call the IdP (the todo page and the console); exact matches. */
      corsOrigins: (e.IDP_CORS_ORIGINS ?? `${new URL(todoUrl).origin},${new URL(controlPlaneUrl).origin}`)
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      clients: [
        // The todo page handles the callback on its own page; the console at /console/.
        { clientId: TODO_CLIENT_ID, redirectUris: [`${todoUrl}/`], postLogoutRedirectUris: [`${todoUrl}/`] },
        {
          clientId: CONSOLE_CLIENT_ID,
          redirectUris: [`${consoleUrl}callback`],
          postLogoutRedirectUris: [consoleUrl],
          audience: CONTROL_PLANE_AUDIENCE,
        },
      ] satisfies OAuthClient[],
    },
    apps: {
      /** Every app of `apps.json`, in its order: port, URL and connection from its variables (`findApp`). */
      list: appList.map((app) => toAppSettings(app, e)),
      /** The RBAC sample's URL, `{app_url}` in the docs and the scripts' target. */
      rbacUrl: e.APP_URL ?? localUrl(e.RBAC_PORT),
      /** The todo sample's URL: its page's OAuth redirect URI and the IdP's CORS origin. */
      todoUrl,
      rbacPolicy: e.RBAC_POLICY,
      authorizer: e.AUTHORIZER,
      clockTolerance: e.CLOCK_TOLERANCE,
    },
    controlPlane: {
      port: e.CONTROL_PLANE_PORT,
      url: controlPlaneUrl,
      /** The console's page, `{relay_url}/console/` (docs/reference/api.md, Console API). */
      consoleUrl,
      /** How long exec waits for the edge's confirmation before answering 504 (s). */
      execTimeout: e.RELAY_EXEC_TIMEOUT_MS / 1000,
      /** Ping period; an edge silent for a whole period is dropped (s). */
      heartbeat: e.RELAY_HEARTBEAT_MS / 1000,
      /** RELAY_BARE_EXEC=on: exec and broadcast on bare node:http ahead of Express (src/fast-path). */
      bareExec: e.RELAY_BARE_EXEC === 'on',
      /** Bearer token for `/metrics` per tenant; a secret: never log it. Unset: totals only. */
      metricsToken: e.METRICS_TOKEN,
      /** PostgreSQL instead of SQLite when set (several nodes share it). Holds a password: never log it. */
      databaseUrl: e.DATABASE_URL,
      databasePoolSize: e.DATABASE_POOL_SIZE,
      /** Redis for cluster mode when set: shared registrations, exec routed between nodes. */
      redisUrl: e.REDIS_URL,
      nodeId: e.RELAY_NODE_ID,
    },
    edge: {
      port: e.EDGE_PORT,
      url: e.EDGE_URL ?? localUrl(e.EDGE_PORT),
      discoveryInterval: e.DISCOVERY_INTERVAL,
      directorySyncInterval: e.DIRECTORY_SYNC_INTERVAL,
      fullSyncInterval: e.FULL_SYNC_INTERVAL,
      freshnessWait: e.FRESHNESS_WAIT,
      /** Connection credentials; when absent the edge reads `<dataDir>/demo-tenant.json`. */
      connectionId: e.EDGE_CONNECTION_ID,
      connectionSecret: e.EDGE_CONNECTION_SECRET,
      /** File of pinned image-signing public keys; undefined when images are not verified. */
      policySigningKeysFile: e.EDGE_POLICY_SIGNING_KEYS === undefined ? undefined : resolve(projectRoot, e.EDGE_POLICY_SIGNING_KEYS),
    },
    tenantCredentials: {
      tenantId: e.OUTPOST_TENANT_ID,
      discoveryApiKey: e.OUTPOST_DISCOVERY_API_KEY,
      adminApiKey: e.OUTPOST_ADMIN_API_KEY,
    },
    /** The directory seed file shared by the IdP (users) and the directory (roles). */
    directorySeedFile: resolve(projectRoot, 'data', 'citadel-directory.json'),
    /** Folder holding one sub-folder per policy (`policies/rbac`, …). */
    policiesDir: resolve(projectRoot, 'policies'),
  };
}

function localUrl(port: number): string {
  return `http://localhost:${port}`;
}

