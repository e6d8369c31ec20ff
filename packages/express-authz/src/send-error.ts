import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import { HttpError } from './http-error';

/** Writes an error as its answer: its status, its headers (a challenge, `Retry-After`) and its JSON body. */
export function sendError(res: Response, error: HttpError): void {
  res.status(error.status).set(error.headers).json(error.toBody());
}

/** How this package's middleware answers a refusal. */
export interface AnswerOptions {
  /**
   * `false` (default): the middleware writes the JSON answer itself, so an app without an error
   * handler never sends Express's HTML page. `true`: it passes the error to `next(err)`, for an
   * app whose own error middleware logs and answers (`authErrorHandler`, or the app's own).
   */
  readonly forwardErrors?: boolean;
}

/** The refusal writer the options ask for. */
export function answerOrForward(options: AnswerOptions): (error: HttpError, req: Request, res: Response, next: NextFunction) => void {
  if (options.forwardErrors === true) return (error, _req, _res, next) => next(error);
  return (error, _req, res) => sendError(res, error);
}

/**
 * Express error middleware for an app that forwards errors: answers this package's errors (any
 * {@link HttpError}) as JSON with their headers, and passes everything else on.
 */
export function authErrorHandler(): ErrorRequestHandler {
  return function authErrorMiddleware(err, _req, res, next) {
    if (err instanceof HttpError && !res.headersSent) sendError(res, err);
    else next(err);
  };
}
