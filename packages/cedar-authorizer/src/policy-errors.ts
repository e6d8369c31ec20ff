/**
 * Errors of the policy layer. They carry no HTTP shape: a bad image at start-up stops
 * the process, a bad image at the edge is refused and reported, and an evaluation
 * failure is turned into a 503 by the authorizer layer above.
 */

/** A policy image is malformed, too large, or its digest does not match its content. */
export class PolicyImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A policy image has more files or bytes than `POLICY_IMAGE_LIMITS` allow. */
export class PolicyImageTooLargeError extends PolicyImageError {}

/**
 * A policy image's schema or policies do not parse, or the policies do not validate
 * against the schema. The message names every problem as `<file>:<line>: <reason>`.
 */
export class PolicyValidationError extends Error {
  constructor(
    readonly imageName: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid policy image "${imageName}":\n  ${problems.join('\n  ')}`);
    this.name = new.target.name;
  }
}

/** Cedar could not evaluate a request (e.g. entities that do not match the schema). */
export class PolicyEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
