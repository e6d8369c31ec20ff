import { z } from 'zod';
import { HttpError } from '../http';
import {
  PolicyImageError,
  PolicyImageTooLargeError,
  PolicyValidationError,
  createPolicyImage,
  validatePolicyImage,
  verifyPolicyImage,
  type PolicyImage,
} from '../policy';

/** At most this many problems are listed in a refusal; a generated policy can have thousands. */
export const MAX_LISTED_PROBLEMS = 20;

/** 400 for a pushed image that is malformed or fails Cedar validation; lists the first problems. */
export class InvalidPolicyError extends HttpError {
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    super(400, 'invalid_policy', more > 0 ? `${message.split('\n')[0]} (${problems.length} problems, first ${listed.length} listed)` : message);
    this.problems = listed;
  }

  override toBody(): Record<string, unknown> {
    return { ...super.toBody(), problems: this.problems };
  }
}

/** A push body: the folder's files (the server computes the digest) or a complete image. */
export const pushBodySchema = z.union([
  z.object({ files: z.record(z.string(), z.string()) }).strict(),
  z.object({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()) }).strict(),
]);

/**
 * Turns a push body into a verified image named `name`, then compiles it against its
 * own Cedar schema so nothing invalid ever enters the registry. Text over the nesting
 * limits, or text Cedar itself fails on, is a 400 `invalid_policy` (the engine is
 * replaced, so the next push of any tenant is unaffected); an image over the size
 * limits is a 413. Nothing is pre-parsed: the registry only
 * stores; edges compile for themselves. Compiling runs on the request's thread, bounded by
 * the size limits (see the README's Limits).
 */
export function validatePushedImage(name: string, body: z.infer<typeof pushBodySchema>): PolicyImage {
  let image: PolicyImage;
  try {
    image = 'digest' in body ? verifyPolicyImage(body) : verifyPolicyImage(createPolicyImage(name, body.files));
    if (image.name !== name) throw new PolicyImageError(`image name "${image.name}" does not match the URL's "${name}"`);
    validatePolicyImage(image);
  } catch (err) {
    if (err instanceof PolicyImageTooLargeError) throw new HttpError(413, 'payload_too_large', err.message);
    if (err instanceof PolicyValidationError) throw new InvalidPolicyError(err.message, err.problems);
    if (err instanceof PolicyImageError) throw new InvalidPolicyError(err.message, [err.message]);
    throw err;
  }
  return image;
}
