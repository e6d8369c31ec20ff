import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Paths that may hold a credential. pino removes them before a line is written, so a
 * careless `log.info({ req })` still never leaks a token, key or password.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["service-tenant-id"]',
  'res.headers["set-cookie"]',
  'password',
  'token',
  'access_token',
  'id_token',
  'secret',
  'key',
  '*.password',
  '*.token',
  '*.secret',
];

/** A JSON logger named after the component (`idp`, `rbac-app`, …). */
export function createLogger(name: string, level: LevelWithSilent = 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACT, remove: true } });
}

/** A logger that writes nothing, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
