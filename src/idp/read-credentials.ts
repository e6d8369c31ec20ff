import { oauthError, type OAuthError } from '../http';

/** The token request of docs/service-interface.md §2.1. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** Generous bounds: an e-mail address is at most 254 characters (RFC 5321 §4.5.3.1.3). */
const MAX_LENGTH = { username: 256, password: 1024 } as const;

function invalidRequest(message: string): OAuthError {
  return oauthError('invalid_request', message);
}

function readField(body: Record<string, unknown>, name: keyof Credentials): string {
  const value = body[name];
  if (value === undefined) throw invalidRequest(`missing ${name}`);
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a string`);
  if (value.length === 0 || value.length > MAX_LENGTH[name]) {
    throw invalidRequest(`${name} must be 1 to ${MAX_LENGTH[name]} characters`);
  }
  return value;
}

/**
 * Checks a parsed JSON body and returns the credentials in it, or throws
 * `400 invalid_request` / `400 unsupported_grant_type` (RFC 6749 §5.2). Unknown members
 * are ignored (RFC 6749 §3.2). The messages name the field, never its value.
 */
export function readCredentials(body: unknown): Credentials {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the request body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  // The endpoint implements the password grant only (RFC 6749 §4.3); grant_type is optional here.
  if (fields.grant_type !== undefined && fields.grant_type !== 'password') {
    throw oauthError('unsupported_grant_type');
  }
  return { username: readField(fields, 'username'), password: readField(fields, 'password') };
}
