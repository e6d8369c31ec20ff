import { join } from 'node:path';
import type { DirectoryData } from '../directory';
import { POLICY_NAME_PATTERN } from '../decision-protocol';
import { compilePolicyImage, explainDecision, readPolicyFolder, type CompiledPolicy } from '../policy';
import { assertPolicyTestsPass, createLocalAuthorizer, type LocalAuthorizer } from '../decision';

export interface OpenLocalAuthorizerOptions {
  /** The folder holding one sub-folder per policy, e.g. `<project>/policies`. */
  readonly policiesDir: string;
  /** Which policy to load, e.g. `rbac`, `rebac` or `todo`. */
  readonly policyName: string;
  /** A directory snapshot, or a getter for a live one. */
  readonly directory: DirectoryData | (() => DirectoryData | undefined);
  readonly cacheSize?: number;
}

/** A local authorizer that owns its compiled policy (released on `close`). */
export interface OpenedLocalAuthorizer extends LocalAuthorizer {
  readonly policy: CompiledPolicy;
}

/**
 * Start-up convenience: reads `policies/<policyName>/`, validates and compiles it,
 * runs the tests the folder carries, and returns a local authorizer over it. An invalid
 * policy throws `PolicyValidationError` naming file and line, and one failing its own
 * tests `PolicyTestsFailedError` naming the failing cases; either should stop start-up.
 */
export function openLocalAuthorizer(options: OpenLocalAuthorizerOptions): OpenedLocalAuthorizer {
  if (!POLICY_NAME_PATTERN.test(options.policyName)) throw new RangeError(`invalid policy name ${JSON.stringify(options.policyName)}`);
  const image = readPolicyFolder(join(options.policiesDir, options.policyName));
  const policy = compilePolicyImage(image);
  try {
    assertPolicyTestsPass(image, policy);
  } catch (err) {
    policy.release();
    throw err;
  }
  const { directory } = options;
  const authorizer = createLocalAuthorizer({
    policy: () => policy,
    directory: typeof directory === 'function' ? directory : () => directory,
    ...(options.cacheSize === undefined ? {} : { cacheSize: options.cacheSize }),
  });
  return {
    ...authorizer,
    kind: 'local',
    policy,
    async explain(request) {
      const decision = await authorizer.authorize(request);
      return { allowed: decision.allowed, policyPath: decision.policyPath, reasons: explainDecision(image.files, decision) };
    },
    async close() {
      await authorizer.close();
      policy.release();
    },
  };
}
