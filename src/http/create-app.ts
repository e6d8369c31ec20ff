import express, { type Express } from 'express';
import type { HelmetOptions } from 'helmet';
import type { Logger } from '../observability';
import { createErrorResponder, errorMiddleware, notFound, type ErrorResponder, type ErrorShape, type ErrorTranslator } from './error-handler';
import { isMalformedPath, MalformedUrlError } from './malformed-url';
import { requestContext } from './request-context';
import { securityHeaders } from './security-headers';

/**
 * The start every Outpost app shares: Express without its `X-Powered-By` banner, helmet's
 * security headers (options for apps that serve a page; `upgrade-insecure-requests` only over
 * HTTPS), request ids with one log line per request, and a 400 for a path that does not
 * decode. These run as one middleware, in that order: each layer Express walks costs every
 * request its routing, and helmet's headers are computed once ({@link securityHeaders}).
 * Routes go on the returned app; {@link finishApp} closes it.
 *
 * @throws TypeError at creation for a CSP directive computed per request (see securityHeaders).
 */
export function createApp(logger: Logger, helmetOptions?: Readonly<HelmetOptions>): Express {
  const app = express();
  app.disable('x-powered-by');
  const setSecurityHeaders = securityHeaders(helmetOptions);
  const startRequest = requestContext(logger);
  app.use(function startAppRequest(req, res, next) {
    setSecurityHeaders(req, res);
    startRequest(req, res);
    if (isMalformedPath(req.path)) {
      next(new MalformedUrlError());
      return;
    }
    next();
  });
  return app;
}

/**
 * The end every Outpost app shares: a JSON 404 for unknown paths, then the one error
 * middleware. An app that keeps data passes its storage's translator (`src/sql`'s
 * `storageErrorTranslator`), so a busy or full database is a 503 or 507, not a 500.
 */
export function finishApp(app: Express, logger: Logger, shape: ErrorShape, translators: readonly ErrorTranslator[] = []): Express {
  return finishAppWith(app, shape, createErrorResponder(logger, shape, { translators }));
}

/**
 * {@link finishApp} with an error responder the caller made, for an app that shares it with
 * routes served in front of it (src/fast-path/bare-json-routes.ts, the opt-in bare path): one responder, so one
 * once-a-minute log per kind of failure, whichever path failed.
 */
export function finishAppWith(app: Express, shape: ErrorShape, answerError: ErrorResponder): Express {
  app.use(notFound(shape));
  app.use(errorMiddleware(answerError));
  return app;
}
