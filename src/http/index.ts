export {
  HttpError,
  OAuthError,
  BadRequestError,
  NotFoundError,
  ConflictError,
  ServiceUnavailableError,
  httpError,
  oauthError,
  statusOf,
} from './http-error';
export { ERROR_CODES, isCodeAt, statusesOf } from './error-codes';
export { ERROR_CODES_MARKERS, renderErrorCodesTable } from './error-codes-doc';
export type { ErrorCode, StatusOf } from './error-codes';
export { createErrorHandler, createErrorResponder, errorInShape, notFound } from './error-handler';
export type { ErrorResponder, ErrorShape, ErrorTranslator } from './error-handler';
export { createApp, finishApp, finishAppWith } from './create-app';
export { contentSecurityPolicy } from './content-security-policy';
export { listen, baseUrl, close, shutdownOnSignal } from './serve';
export { basicCredential, decodeBasicPair } from './basic-credentials';
export { parseBody, parseParam } from './parse-request';
export { requestIdFor } from './request-id';
export { serveBrowserModules } from './browser-modules';
export { serveFile } from './serve-file';
export { jsonBody, formBody, noBody } from './read-body';
export { refuseWriteQuery } from './refuse-write-query';
export { buildOpenApiDocument, serveOpenApi, findApiRoute, apiErrors, badRequest, OPENAPI_PATH } from './openapi';
export type { ApiRoute, RouteError } from './openapi';
export { requestLog } from './request-context';
export { securityHeaderRecords } from './security-headers';
