import { z } from 'zod';

/** A policy image digest. */
export const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * Text an edge reports that operators will read in a terminal or a page: no control
 * characters (C0, C1: escape sequences can rewrite a terminal) and no format characters
 * (Unicode Cf: right-to-left overrides and invisible characters can disguise an id).
 */
export const DISPLAY_SAFE = /^[^\p{Cc}\p{Cf}]*$/u;

/** A string of at most `max` characters, {@link DISPLAY_SAFE}. */
export const displayText = (max: number) => z.string().max(max).regex(DISPLAY_SAFE, 'must not contain control or format characters');
