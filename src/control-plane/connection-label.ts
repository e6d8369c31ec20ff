import { z } from 'zod';

/** A connection label's longest length, in characters (docs/reference/limits.md). */
export const MAX_CONNECTION_LABEL_LENGTH = 64;

/**
 * What a connection serves, in words (`sidecar`, `RBAC app (embedded edge)`): trimmed, 1 to
 * {@link MAX_CONNECTION_LABEL_LENGTH} characters, no control characters. Only shown, never
 * used to decide anything; the id stays the connection's name everywhere else.
 */
export const connectionLabelSchema = z
  .string()
  .trim()
  .min(1, 'label must not be empty')
  .max(MAX_CONNECTION_LABEL_LENGTH, `label must be at most ${MAX_CONNECTION_LABEL_LENGTH} characters`)
  .regex(/^[^\p{Cc}]*$/u, 'label must not contain control characters');
