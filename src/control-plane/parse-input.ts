import type { z } from 'zod';
import { BadRequestError } from '../http';

/** Parses a JSON body against a schema; a mismatch is the caller's fault (400), never ours. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
      .join('; ');
    throw new BadRequestError(`invalid request body: ${detail}`);
  }
  return parsed.data;
}

/** Checks a path parameter against a pattern (400 naming the parameter, not echoing it). */
export function parseParam(value: string | string[] | undefined, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw new BadRequestError(`invalid ${what}`);
  return value;
}
