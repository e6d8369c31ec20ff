import { z } from 'zod';
import { HttpError } from '../http';
import {
  PolicyImageError,
  PolicyValidationError,
  compilePolicyImage,
  createPolicyImage,
  verifyPolicyImage,
  type PolicyImage,
} from '../policy';

/** 400 for a pushed image that is malformed or fails Cedar validation; lists every problem. */
export class InvalidPolicyError extends HttpError {
  constructor(
    message: string,
    readonly problems: readonly string[],
  ) {
    super(400, 'invalid_policy', message);
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
 * own Cedar schema so nothing invalid ever enters the registry. The compiled set is
 * released at once: the registry only stores; edges compile for themselves.
 */
export function validatePushedImage(name: string, body: z.infer<typeof pushBodySchema>): PolicyImage {
  let image: PolicyImage;
  try {
    image = 'digest' in body ? verifyPolicyImage(body) : verifyPolicyImage(createPolicyImage(name, body.files));
    if (image.name !== name) throw new PolicyImageError(`image name "${image.name}" does not match the URL's "${name}"`);
    compilePolicyImage(image).release();
  } catch (err) {
    if (err instanceof PolicyValidationError) throw new InvalidPolicyError(err.message, err.problems);
    if (err instanceof PolicyImageError) throw new InvalidPolicyError(err.message, [err.message]);
    throw err;
  }
  return image;
}
