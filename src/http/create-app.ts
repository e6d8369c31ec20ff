import express, { type Express } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import type { Logger } from '../observability';
import { contentSecurityPolicy } from './content-security-policy';
import { createErrorHandler, notFound, type ErrorShape, type ErrorTranslator } from './error-handler';
import { rejectMalformedUrl } from './malformed-url';
import { requestContext } from './request-context';

/**
 * The start every Outpost app shares: Express without its `X-Powered-By` banner, helmet's
 * security headers (options for apps that serve a page; `upgrade-insecure-requests` only over
 * HTTPS), request ids with one log line
 * per request, and a 400 for a path that does not decode. Routes go on the returned app;
 * {@link finishApp} closes it.
 */
export function createApp(logger: Logger, helmetOptions?: Readonly<HelmetOptions>): Express {
  const app = express();
  app.disable('x-powered-by');
  // The CSP is helmet's, except that upgrade-insecure-requests goes over HTTPS only (see contentSecurityPolicy).
  const { contentSecurityPolicy: csp, ...rest } = helmetOptions ?? {};
  app.use(helmet({ ...rest, contentSecurityPolicy: false }));
  if (csp !== false) app.use(contentSecurityPolicy(typeof csp === 'object' ? csp.directives : undefined));
  app.use(requestContext(logger));
  app.use(rejectMalformedUrl());
  return app;
}

/**
 * The end every Outpost app shares: a JSON 404 for unknown paths, then the one error
 * middleware. An app that keeps data passes its storage's translator (`src/sql`'s
 * `storageErrorTranslator`), so a busy or full database is a 503 or 507, not a 500.
 */
export function finishApp(app: Express, logger: Logger, shape: ErrorShape, translators: readonly ErrorTranslator[] = []): Express {
  app.use(notFound(shape));
  app.use(createErrorHandler(logger, shape, { translators }));
  return app;
}
