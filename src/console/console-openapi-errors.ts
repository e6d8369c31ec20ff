import type { RouteError } from '../http';
import { CONSOLE_API_PATH } from './console-routes';

// What the console API's route tables share: the tenant path and the errors every route may answer.

/** A tenant's routes start here. */
export const TENANT = `${CONSOLE_API_PATH}/tenants/{tenantId}`;
/** The bearer layer's refusals, in the console's `{code, message}` shape. */
export const AUTH: readonly RouteError[] = [
  { code: 'invalid_request', when: 'a malformed Authorization header, or a token in the query string' },
  { code: 'unauthorized', when: 'no access token' },
  { code: 'invalid_token', when: 'not one the IdP issued to the console (wrong audience, ID token, expired)' },
  { code: 'temporarily_unavailable', when: "the IdP's keys cannot be fetched" },
];
/** A tenant's route: a signed-in member of it. */
export const MEMBER: readonly RouteError[] = [...AUTH, { code: 'tenant_not_found', when: 'no such tenant among your accounts (another tenant looks the same)' }];
/** A write: a member of at least `least`, and no query string. */
export const ROLE = (least: string): readonly RouteError[] => [...MEMBER, { code: 'forbidden', when: `your role is below ${least}` }, 'unknown_query_parameter'];
