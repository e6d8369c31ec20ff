export { HttpError, OAuthError, BadRequestError, NotFoundError, ConflictError, ServiceUnavailableError } from './http-error';
export { createErrorHandler, notFound } from './error-handler';
export type { ErrorShape } from './error-handler';
export { requestContext } from './request-context';
export { createApp, finishApp } from './create-app';
export { requestIdFor } from './request-id';
export { listen, baseUrl, close, shutdownOnSignal } from './serve';
export { basicCredential, decodeBasicPair } from './basic-credentials';
