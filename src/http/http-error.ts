/**
 * Errors that carry their HTTP shape. Handlers throw them; the one final error
 * middleware of each app ({@link createErrorHandler}) turns them into responses.
 * `HttpError` and `OAuthError` are the middleware package's (packages/express-authz), so its
 * refusals and the platform's errors are one class family, answered by one error handler.
 */
import { HttpError } from '@outpost/express-authz';

export { HttpError, OAuthError } from '@outpost/express-authz';

/** 400 with the `{code, message}` body, for malformed requests to Outpost's own APIs. */
export class BadRequestError extends HttpError {
  constructor(message: string, code = 'bad_request') {
    super(400, code, message);
  }
}

/** 404 with the `{code, message}` body. */
export class NotFoundError extends HttpError {
  constructor(message: string, code = 'not_found') {
    super(404, code, message);
  }
}

/** 409 with the `{code, message}` body. */
export class ConflictError extends HttpError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

/** 503: a dependency we need (JWKS, authorizer) is unavailable. Fail closed. */
export class ServiceUnavailableError extends HttpError {
  constructor(message: string, code = 'service_unavailable', detail?: string) {
    super(503, code, message, {}, detail);
  }
}
