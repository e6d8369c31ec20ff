import { z } from 'zod';
import { POLICY_NAME_PATTERN } from '@outpost/cedar-authorizer';

/** A port variable; the apps list's per-app variables use the same three kinds (`app-list.ts`). */
export const port = z.coerce.number().int().min(0).max(65535);
/** A URL variable, `http` or `https`, its trailing slashes dropped. */
export const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
const seconds = z.coerce.number().int().positive();
const milliseconds = z.coerce.number().int().positive();
/** Any non-empty text (an id, a secret). */
export const text = z.string().min(1);
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
export const authorizerKind = z.enum(['embedded', 'edge', 'local']);

/** One environment variable: its schema (with the default) and one line for the docs. */
interface EnvVar<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** What the variable means, with its unit; docs/reference/configuration.md's table and `.env.example` print it. */
  readonly doc: string;
  /** What the docs show when the variable has no fixed default (it is derived). */
  readonly derived?: string;
}

function v<S extends z.ZodType>(schema: S, doc: string, derived?: string): EnvVar<S> {
  return derived === undefined ? { schema, doc } : { schema, doc, derived };
}

/**
 * The group documenting the sample apps' variables. Every app of `apps.json` has its
 * `<env>_PORT`, `<env>_URL`, `<env>_CONNECTION_ID` and `<env>_CONNECTION_SECRET`
 * (`app-list.ts`); this group documents the sample apps' ones, the only variables an app's
 * may share a name with.
 */
export const APPS_GROUP = 'Sample apps ({app_url} is the RBAC app)';

/**
 * Every environment variable Outpost reads, grouped by component, with its default and
 * its meaning. This is the one description of the configuration: `loadConfig` parses
 * against it, and `npm run config:docs` writes docs/reference/configuration.md's table and `.env.example` from
 * it (a test fails when they drift). A component's URL defaults to
 * `http://localhost:<its port>`, so moving a port moves the URL with it.
 */
export const ENV_GROUPS = {
  'Where the stack runs': {
    OUTPOST_HOST: v(text.default('127.0.0.1'), 'address every component binds to'),
    OUTPOST_DATA_DIR: v(text.default('.data'), 'SQLite files, keys, demo tenant, logs; with DATABASE_URL set the default is .data/postgres'),
    LOG_LEVEL: v(logLevel.default('info'), 'pino level: fatal, error, warn, info, debug, trace or silent'),
    STACK_START_TIMEOUT: v(
      seconds.default(180),
      'longest `npm start` waits for a component to answer its ready path while it keeps working (s); one that uses no CPU and logs nothing for 30 s fails sooner',
    ),
  },
  'Demo identity provider ({auth_url})': {
    IDP_PORT: v(port.default(5556), 'IdP port'),
    AUTH_URL: v(url.optional(), '{auth_url}, the IdP as callers reach it', 'http://localhost:<IDP_PORT>'),
    IDP_ISSUER: v(url.optional(), '`iss` of issued tokens', 'AUTH_URL'),
    ACCESS_TOKEN_TTL: v(seconds.default(3600), 'access token lifetime (s)'),
    ID_TOKEN_TTL: v(seconds.default(3600), 'ID token lifetime (s)'),
    API_AUDIENCE: v(text.default('urn:outpost:sample-api'), '`aud` of access tokens'),
    DEMO_CLIENT_ID: v(text.default('outpost-demo-client'), '`client_id`; `aud` of ID tokens'),
    KEY_ROTATION_OVERLAP: v(seconds.default(24 * 3600), 'how long a rotated-out signing key stays in the JWKS (s)'),
    LOGIN_MAX_FAILURES: v(z.coerce.number().int().positive().default(5), 'failed sign-ins per (user, address) within the window before 429; a user alone gets 4×, an address alone 20×'),
    LOGIN_FAILURE_WINDOW: v(seconds.default(300), 'the sign-in failure window (s)'),
    IDP_CORS_ORIGINS: v(text.optional(), 'browser origins allowed at the IdP, comma-separated', 'origins of TODO_URL and RELAY_URL'),
  },
  [APPS_GROUP]: {
    RBAC_PORT: v(port.default(3001), 'RBAC app port'),
    APP_URL: v(url.optional(), '{app_url}, the RBAC app as callers reach it', 'http://localhost:<RBAC_PORT>'),
    TODO_PORT: v(port.default(3002), 'todo app port'),
    TODO_URL: v(url.optional(), 'the todo app as browsers reach it; `{TODO_URL}/` is also its OAuth redirect URI', 'http://localhost:<TODO_PORT>'),
    RBAC_POLICY: v(z.string().regex(POLICY_NAME_PATTERN).default('rbac'), 'policy folder the RBAC app evaluates (`rbac`, `rebac`)'),
    AUTHORIZER: v(authorizerKind.default('embedded'), "who answers the apps' authorization questions: `embedded` (an edge inside the app), `edge` (the sidecar over HTTP) or `local` (policies/ and the seed directory, no relay)"),
    RBAC_CONNECTION_ID: v(text.optional(), "the RBAC app's embedded edge: connection id", 'from demo-tenant.json'),
    RBAC_CONNECTION_SECRET: v(text.optional(), "the RBAC app's embedded edge: connection secret", 'from demo-tenant.json'),
    TODO_CONNECTION_ID: v(text.optional(), "the todo app's embedded edge: connection id", 'from demo-tenant.json'),
    TODO_CONNECTION_SECRET: v(text.optional(), "the todo app's embedded edge: connection secret", 'from demo-tenant.json'),
    CLOCK_TOLERANCE: v(z.coerce.number().int().min(0).max(300).default(5), 'clock skew allowed on token times (s)'),
  },
  'Control plane and relay ({relay_url})': {
    CONTROL_PLANE_PORT: v(port.default(8585), 'control plane port'),
    RELAY_URL: v(url.optional(), '{relay_url}, the control plane as callers and edges reach it', 'http://localhost:<CONTROL_PLANE_PORT>'),
    RELAY_EXEC_TIMEOUT_MS: v(milliseconds.default(10_000), 'exec waits this long for the edge, then 504 (ms)'),
    RELAY_HEARTBEAT_MS: v(milliseconds.default(30_000), 'ping period; an edge silent for a whole period is dropped (ms)'),
    RELAY_BARE_EXEC: v(
      z.enum(['on', 'off']).default('off'),
      'on: exec and broadcast served on bare node:http ahead of Express, with the same answers (a measured opt-in: docs/reference/configuration.md, "Bare exec")',
    ),
    METRICS_TOKEN: v(
      z.string().regex(/^[A-Za-z0-9\-._~+/]{32,512}=*$/, 'must be 32 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (e.g. openssl rand -base64 32)').optional(),
      "bearer token (32+ characters) that shows the control plane's `/metrics` per tenant; without it `/metrics` gives totals and names no tenant",
      'unset: totals only',
    ),
  },
  'Several control-plane nodes (docs/guide/06-more-than-one-node.md)': {
    DATABASE_URL: v(
      z.url({ protocol: /^postgres(ql)?$/ }).optional(),
      'PostgreSQL for every control-plane repository (`postgres://user:pass@host:port/db`)',
      'unset: SQLite in OUTPOST_DATA_DIR',
    ),
    DATABASE_POOL_SIZE: v(z.coerce.number().int().min(1).max(100).default(10), 'PostgreSQL connections per control-plane node'),
    REDIS_URL: v(
      z.url({ protocol: /^rediss?$/ }).optional(),
      'Redis that shares registrations and routes exec between nodes (`redis://host:port`)',
      'unset: one node, sockets in memory',
    ),
    RELAY_NODE_ID: v(
      z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).optional(),
      "this node's name in Redis (letters, digits, `.`, `_`, `-`)",
      'hostname-pid-random',
    ),
  },
  'Edge authorizer': {
    EDGE_PORT: v(port.default(8383), 'edge authorizer port'),
    EDGE_URL: v(url.optional(), 'the edge as the apps reach it', 'http://localhost:<EDGE_PORT>'),
    DISCOVERY_INTERVAL: v(seconds.default(60), 'policy discovery timer (s); a failed run is tried again sooner, from ~1 s doubling until this'),
    DIRECTORY_SYNC_INTERVAL: v(seconds.default(60), 'directory sync timer (s); a failed run is tried again sooner, from ~1 s doubling until this'),
    FULL_SYNC_INTERVAL: v(seconds.default(3600), 'periodic full directory sync (s)'),
    FRESHNESS_WAIT: v(seconds.default(2), 'longest a decision waits for the sync its `min_*` fields ask for, then 503 (s)'),
    EDGE_CONNECTION_ID: v(text.optional(), 'edge connection id', 'from demo-tenant.json'),
    EDGE_CONNECTION_SECRET: v(text.optional(), 'edge connection secret', 'from demo-tenant.json'),
    EDGE_POLICY_SIGNING_KEYS: v(
      text.optional(),
      'file of trusted public keys (`{"keys": [JWK, …]}`, Ed25519 or P-256); when set, the edge activates only images signed by one of them',
      'unset: images are not verified',
    ),
  },
  'Tenant credentials for the scripts': {
    OUTPOST_TENANT_ID: v(text.optional(), 'tenant id for relay-exec, find-instance, policy, directory, demo', 'from demo-tenant.json'),
    OUTPOST_DISCOVERY_API_KEY: v(text.optional(), "the tenant's Discovery API key (relay management)", 'from demo-tenant.json'),
    OUTPOST_ADMIN_API_KEY: v(text.optional(), "the tenant's admin key (policy pushes, directory writes)", 'from demo-tenant.json'),
  },
} as const;

type Groups = typeof ENV_GROUPS;
type AllVars = { [G in keyof Groups]: Groups[G] }[keyof Groups];
type Flatten<U> = { [K in U extends unknown ? keyof U : never]: U extends { [P in K]: EnvVar<infer S> } ? S : never };
type EnvShape = Flatten<AllVars>;

const shape = Object.fromEntries(
  Object.values(ENV_GROUPS).flatMap((group) => Object.entries(group).map(([name, envVar]) => [name, envVar.schema])),
) as unknown as EnvShape;

/** The environment schema; its parsed output is what `loadConfig` maps into `Config`. */
export const envSchema = z.object(shape);

/** The parsed environment. */
export type Env = z.infer<typeof envSchema>;
