import { z } from 'zod';
import { checkPolicyImage, PolicyTestsFailedError } from '../decision';
import { HttpError, httpError, statusOf } from '../http';
import { PolicyImageError, PolicyImageTooLargeError, PolicyValidationError, createPolicyImage, signatureSchema, verifyPolicyImage, type PolicyImage } from '../policy';

/** At most this many problems are listed in a refusal; a generated policy can have thousands. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * 400 for a pushed image that is malformed or fails Cedar validation (`invalid_policy`),
 * or whose own tests fail (`policy_tests_failed`); lists the first problems.
 */
export class InvalidPolicyError extends HttpError {
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[], code: 'invalid_policy' | 'policy_tests_failed' = 'invalid_policy') {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    super(statusOf(code), code, more > 0 ? `${message.split('\n')[0]} (${problems.length} problems, first ${listed.length} listed)` : message);
    this.problems = listed;
  }

  override toBody(): Record<string, unknown> {
    return { ...super.toBody(), problems: this.problems };
  }
}

/**
 * A push body: the folder's files (the server computes the digest) or a complete image,
 * either with an optional `signature` (a compact JWS over the image's name, digest and
 * version).
 */
export const pushBodySchema = z.union([
  z.object({ files: z.record(z.string(), z.string()), signature: signatureSchema.optional() }).strict(),
  z.object({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()), signature: signatureSchema.optional() }).strict(),
]);

/**
 * A pushed image that passed every check, with the signature to store beside it and, when
 * the push check verified that signature, the version it signed (else undefined: a
 * tenant without keys may push a signature, stored unchecked for edges to verify).
 */
export interface AcceptedImage {
  readonly image: PolicyImage;
  readonly signature: string | undefined;
  readonly version: number | undefined;
}

/**
 * The push check of the tenant (`ImagePushCheck.check`, bound to it): refuses by throwing;
 * resolves with the version a verified signature signs.
 */
export type PushedImageCheck = (image: PolicyImage, signature: string | undefined) => Promise<number | undefined>;

/**
 * Turns a push body into a verified image named `name`, hands it and its signature to the
 * tenant's push `check` (signed images: a tenant with keys takes signed images only; whether
 * a signed version is new is the registry's check, made as it stores), then compiles it against its own Cedar
 * schema and runs the tests it carries, so nothing unsigned, invalid or failing its own
 * tests ever enters the registry. Text over the nesting limits, or text Cedar itself
 * fails on, is a 400 `invalid_policy` (the engine is replaced, so the next push of any
 * tenant is unaffected); a failing test is a 400 `policy_tests_failed` listing the
 * failing cases; an image over the size limits is a 413. An image without tests is
 * only validated, never pre-parsed: the registry stores; edges compile for themselves.
 * Compiling and testing run on the request's thread, bounded by the size and test-case
 * limits (see docs/reference/limits.md).
 */
export async function validatePushedImage(
  name: string,
  body: z.infer<typeof pushBodySchema>,
  check: PushedImageCheck,
): Promise<AcceptedImage> {
  let image: PolicyImage;
  let version: number | undefined;
  try {
    const { signature: _signature, ...unsigned } = body;
    image = 'digest' in unsigned ? verifyPolicyImage(unsigned) : verifyPolicyImage(createPolicyImage(name, unsigned.files));
    if (image.name !== name) throw new PolicyImageError(`image name "${image.name}" does not match the URL's "${name}"`);
    // Before Cedar sees any of the image's text.
    version = await check(image, body.signature);
    checkPolicyImage(image);
  } catch (err) {
    if (err instanceof PolicyImageTooLargeError) throw httpError('payload_too_large', err.message);
    if (err instanceof PolicyValidationError) throw new InvalidPolicyError(err.message, err.problems);
    if (err instanceof PolicyImageError) throw new InvalidPolicyError(err.message, [err.message]);
    if (err instanceof PolicyTestsFailedError) throw new InvalidPolicyError(err.message, err.failures, 'policy_tests_failed');
    throw err;
  }
  return { image, signature: body.signature, version };
}
