import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
const seconds = z.coerce.number().int().positive();
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
export const authorizerKind = z.enum(['local', 'edge']);

/**
 * Every environment variable Outpost reads, with its default. The README and
 * `.env.example` document the same list; keep the three in step. A component's URL
 * (`AUTH_URL`, `APP_URL`, …) defaults to `http://localhost:<its port>` in `loadConfig`,
 * so moving a port moves the URL with it.
 */
export const envSchema = z.object({
  OUTPOST_HOST: z.string().min(1).default('127.0.0.1'),
  OUTPOST_DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: logLevel.default('info'),

  IDP_PORT: port.default(5556),
  AUTH_URL: url.optional(),
  IDP_ISSUER: url.optional(),
  ACCESS_TOKEN_TTL: seconds.default(3600),
  ID_TOKEN_TTL: seconds.default(3600),
  API_AUDIENCE: z.string().min(1).default('urn:outpost:sample-api'),
  DEMO_CLIENT_ID: z.string().min(1).default('outpost-demo-client'),
  KEY_ROTATION_OVERLAP: seconds.default(24 * 3600),
  LOGIN_MAX_FAILURES: z.coerce.number().int().positive().default(5),
  LOGIN_FAILURE_WINDOW: seconds.default(300),
  IDP_CORS_ORIGINS: z.string().optional(),

  RBAC_PORT: port.default(3001),
  APP_URL: url.optional(),
  TODO_PORT: port.default(3002),
  TODO_URL: url.optional(),
  RBAC_POLICY: z.string().regex(/^[a-z][a-z0-9-]*$/).default('rbac'),
  AUTHORIZER: authorizerKind.default('edge'),
  CLOCK_TOLERANCE: z.coerce.number().int().min(0).max(300).default(5),

  CONTROL_PLANE_PORT: port.default(8585),
  RELAY_URL: url.optional(),
  EDGE_PORT: port.default(8383),
  EDGE_URL: url.optional(),
  DISCOVERY_INTERVAL: seconds.default(60),
  DIRECTORY_SYNC_INTERVAL: seconds.default(60),
  FULL_SYNC_INTERVAL: seconds.default(3600),
  EDGE_CONNECTION_ID: z.string().min(1).optional(),
  EDGE_CONNECTION_SECRET: z.string().min(1).optional(),
  RELAY_EXEC_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  RELAY_HEARTBEAT_MS: z.coerce.number().int().positive().default(30_000),
  OUTPOST_TENANT_ID: z.string().min(1).optional(),
  OUTPOST_DISCOVERY_API_KEY: z.string().min(1).optional(),
  OUTPOST_ADMIN_API_KEY: z.string().min(1).optional(),
});
