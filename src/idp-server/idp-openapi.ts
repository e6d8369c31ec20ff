import { z } from 'zod';
import { apiErrors, buildOpenApiDocument, type ApiRoute, type RouteError } from '../http';
import { DISCOVERY_PATH, JWKS_PATH, LOGIN_PATH, ROUTES, TOKEN_PATH, USERINFO_PATH } from '../idp';

// The IdP's document lives with the IdP's process, as the edge's lives with the sidecar: in
// src/openapi, every process that loads that area's documents (the control plane's) would load
// the IdP and node-oidc-provider too, and the IdP's process would load the control plane's.

/** The seed's JSON token request (docs/service-interface.md §2.1), as `readCredentials` checks it. */
const jsonTokenRequest = z.object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) });

/** RFC 6749 §4.1.3, §4.3, §6: the form-encoded grants of the same endpoint. */
const formTokenRequest = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token', 'password', 'client_credentials']),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  code: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  refresh_token: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  scope: z.string().optional(),
});

const tokenResponse = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().int(),
  id_token: z.string().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});

const oauthErrors = (errors: readonly RouteError[]) => apiErrors(errors, 'oauth');
const html = (description: string) => ({ description, contentType: 'text/html' });

/** Every route of the demo IdP. */
export const IDP_ROUTES: readonly ApiRoute[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } } },
  {
    method: 'post',
    path: TOKEN_PATH,
    summary: "Tokens: the seed's JSON password exchange, or a form-encoded OAuth 2.0 grant",
    requestBody: { content: { 'application/json': jsonTokenRequest, 'application/x-www-form-urlencoded': formTokenRequest } },
    responses: {
      200: { description: 'access token (RFC 9068), ID token, and a refresh token for the code and refresh grants', schema: tokenResponse },
      ...oauthErrors([
        { code: 'invalid_request', when: 'a missing, repeated or mistyped field, or a body over 4 kB' },
        { code: 'invalid_grant', status: 400, when: 'form grants: wrong password, a bad, expired or reused code or refresh token, a PKCE mismatch' },
        'invalid_scope',
        'invalid_target',
        'unsupported_grant_type',
        { code: 'invalid_grant', when: 'JSON: wrong username or password' },
        'invalid_client',
        { code: 'invalid_request', status: 415, when: 'neither JSON nor a form, or a compressed body' },
        { code: 'too_many_requests', when: 'too many failed sign-ins; Retry-After' },
        { code: 'temporarily_unavailable', when: 'the password-hashing queue is full, or storage is unavailable; Retry-After' },
      ]),
    },
  },
  {
    method: 'get',
    path: DISCOVERY_PATH,
    summary: 'OpenID Connect discovery',
    responses: { 200: { description: 'what this IdP implements', schema: z.looseObject({ issuer: z.string(), token_endpoint: z.string(), jwks_uri: z.string() }) } },
  },
  {
    method: 'get',
    path: JWKS_PATH,
    summary: 'The public signing keys (RFC 7517)',
    responses: { 200: { description: 'the key set', schema: z.object({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string() })) }) } },
  },
  {
    method: 'get',
    path: ROUTES.authorization,
    summary: 'Authorization code + PKCE (S256): redirects to the login page, or back with a code or an error',
    responses: {
      303: { description: 'to /login/{uid}, or back to the client with code or error' },
      400: html('unknown client_id or redirect_uri (never redirected)'),
    },
  },
  {
    method: 'get',
    path: `${LOGIN_PATH}/{uid}`,
    summary: 'The login page of one sign-in',
    responses: { 200: html('the login page'), 403: html('the sign-in expired or was opened in another browser') },
  },
  {
    method: 'post',
    path: `${LOGIN_PATH}/{uid}`,
    summary: 'The login form (CSRF token required)',
    requestBody: { content: { 'application/x-www-form-urlencoded': z.object({ username: z.string(), password: z.string(), csrf_token: z.string() }) } },
    responses: {
      303: { description: 'signed in: on through /authorize back to the client with a code' },
      400: html('the page again, with what is missing'),
      401: html('the page again: wrong username or password'),
      403: html('the form expired or was not ours'),
      429: html('too many failed sign-ins'),
      503: html('the sign-in service is busy'),
    },
  },
  {
    method: 'get',
    path: USERINFO_PATH,
    summary: 'Claims about the signed-in user (Bearer access token)',
    responses: { 200: { description: 'the claims', schema: z.looseObject({ sub: z.string() }) }, ...oauthErrors([{ code: 'invalid_request', when: 'a malformed Authorization header' }, { code: 'unauthorized', when: 'no access token' }, { code: 'invalid_token', when: 'not a valid access token' }]) },
  },
  {
    method: 'post',
    path: ROUTES.revocation,
    summary: 'Revoke a refresh token (RFC 7009)',
    requestBody: { content: { 'application/x-www-form-urlencoded': z.object({ token: z.string(), client_id: z.string().optional() }) } },
    responses: { 200: { description: 'revoked, or it was never valid' }, ...oauthErrors([{ code: 'invalid_request', when: 'no token, or no client_id' }, { code: 'invalid_client', when: 'unknown client' }]) },
  },
  {
    method: 'get',
    path: ROUTES.end_session,
    summary: 'Sign out (OIDC RP-Initiated Logout): asks to confirm, then signs out',
    responses: { 200: html('the confirmation page'), 400: html('an unknown client or post-logout URI') },
  },
];

/** The IdP's OpenAPI 3.1 document, served at `/openapi.json`. */
export const IDP_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost demo identity provider', version: '0.1.0', description: 'Demo only: the seed token endpoint, plus OAuth 2.0 / OpenID Connect from node-oidc-provider around it.' },
  IDP_ROUTES,
);
