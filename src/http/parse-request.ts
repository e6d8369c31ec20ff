import type { z } from 'zod';
import type { CodeAt } from './error-codes';
import { BadRequestError } from './http-error';

/** Issues named in one 400: enough to fix a request, bounded so a junk body cannot inflate the answer. */
const MAX_ISSUES = 5;

/** Options of {@link parseBody}. */
export interface ParseBodyOptions {
  /** The error `code` (default `bad_request`). */
  readonly code?: CodeAt<400>;
  /** What the body is, for the message (default `request body`). */
  readonly what?: string;
}

/**
 * Parses a request body against its zod schema. A mismatch is the caller's fault: 400 with
 * `invalid <what>: <path>: <problem>; …` naming up to five problems. Every JSON API of the
 * stack checks bodies through here, so they all answer the same way.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, options: ParseBodyOptions = {}): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, MAX_ISSUES)
      .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
      .join('; ');
    throw new BadRequestError(`invalid ${options.what ?? 'request body'}: ${detail}`, options.code);
  }
  return parsed.data;
}

/** Checks a path parameter against a pattern (400 naming the parameter, not echoing it). */
export function parseParam(value: string | string[] | undefined, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw new BadRequestError(`invalid ${what}`);
  return value;
}
