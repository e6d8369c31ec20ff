import express from 'express';
import { z } from 'zod';
import { BODY_LIMITS, requireTenantKey, type ControlPlaneStore } from '../control-plane';
import { apiErrors, badRequest, jsonBody, type ApiRoute } from '../http';
import { ADMIN_AUTH, ADMIN_WRITE, type DocumentedExtension } from '../openapi';
import { addSigningKeyBodySchema, signingKeyShape } from '../policy';
import { adminSigningKeyRoutes } from './admin-signing-key-routes';

/** Where the admin API keeps a tenant's image-signing keys. */
const SIGNING_KEYS = '/api/v2/admin/signing-keys';

/** The admin API's signing-key routes, for the control plane's OpenAPI document. */
export const SIGNING_KEY_ROUTES: readonly ApiRoute[] = [
  {
    method: 'post',
    path: SIGNING_KEYS,
    summary: 'Register a public key (Ed25519 or P-256 JWK); from then on pushes must be signed',
    requestBody: { content: { 'application/json': addSigningKeyBodySchema } },
    responses: {
      201: { description: 'registered', schema: z.strictObject({ kid: z.string() }) },
      200: { description: 'already registered', schema: z.strictObject({ kid: z.string() }) },
      ...apiErrors([badRequest('not a public Ed25519 or P-256 JWK, or a weak (small-order) Ed25519 key'), ...ADMIN_WRITE, { code: 'quota_exceeded', when: 'the tenant has 10 signing keys' }]),
    },
  },
  {
    method: 'get',
    path: SIGNING_KEYS,
    summary: "The tenant's registered signing keys",
    responses: { 200: { description: 'the keys', schema: z.strictObject({ keys: z.array(signingKeyShape) }) }, ...apiErrors([ADMIN_AUTH]) },
  },
  {
    method: 'delete',
    path: `${SIGNING_KEYS}/{kid}`,
    summary: 'Remove a signing key',
    responses: { 204: { description: 'removed' }, ...apiErrors([badRequest('invalid key id'), ...ADMIN_WRITE, 'unknown_key']) },
  },
];

/**
 * The tenant's image-signing keys plugged into the control plane (`createControlPlaneApp`'s
 * extensions): `/api/v2/admin/signing-keys` behind the tenant's admin key, its body parsed
 * once the key is checked (docs/reference/api.md), and its routes in `/openapi.json`.
 */
export function signingKeysExtension(store: ControlPlaneStore): DocumentedExtension {
  const router = express.Router().use(SIGNING_KEYS, requireTenantKey(store, 'admin'), jsonBody(BODY_LIMITS.other), adminSigningKeyRoutes(store));
  return { router, routes: SIGNING_KEY_ROUTES };
}
