import { OAuthError } from '../../http';

/** A form-encoded request's parameters, each present at most once (RFC 6749 §3.1, §3.2). */
export interface FormParams {
  /** The parameter's value; undefined when absent or empty (RFC 6749 §3.1). */
  optional(name: string): string | undefined;
  /** The parameter's value, or 400 `invalid_request` naming it. */
  required(name: string): string;
}

const MAX_VALUE = 2048;

/** Wraps a body parsed by `formBody()` (body-parser's urlencoded reader, `extended: false`: flat string values). */
export function readForm(body: unknown): FormParams {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  function optional(name: string): string | undefined {
    const value = fields[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `${name} must be given once`);
    if (value.length > MAX_VALUE) throw new OAuthError(400, 'invalid_request', `${name} is too long`);
    return value;
  }
  return {
    optional,
    required(name) {
      const value = optional(name);
      if (value === undefined) throw new OAuthError(400, 'invalid_request', `missing ${name}`);
      return value;
    },
  };
}
