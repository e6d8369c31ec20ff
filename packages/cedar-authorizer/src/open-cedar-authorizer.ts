import { join } from 'node:path';
import { loadDirectoryFile, type DirectoryData } from './directory-data';
import { POLICY_NAME_PATTERN } from './policy-name';
import { compilePolicyImage } from './compile-policy-image';
import type { CompiledPolicy } from './compiled-policy';
import { explainDecision } from './explain-decision';
import { readPolicyFolder } from './read-policy-folder';
import { assertPolicyTestsPass } from './run-policy-tests';
import { createLocalAuthorizer, type LocalAuthorizer } from './local-authorizer';

/** Options of {@link openCedarAuthorizer}. */
export interface CedarAuthorizerOptions {
  /** One policy folder: `*.cedar` files, `schema.cedarschema`, and the `tests/` it carries. */
  readonly policyFolder: string;
  /** Who holds which roles: a directory file (`{ roles, users, resources? }`), a snapshot, or a getter for a live one. */
  readonly directory: string | DirectoryData | (() => DirectoryData | undefined);
  /** Decision cache entries (LRU); 0 disables it. Default 10,000. */
  readonly cacheSize?: number;
}

/** Options of {@link openLocalAuthorizer}: a policy by name under a folder of policy folders. */
export interface OpenLocalAuthorizerOptions extends Omit<CedarAuthorizerOptions, 'policyFolder' | 'directory'> {
  /** The folder holding one sub-folder per policy, e.g. `<project>/policies`. */
  readonly policiesDir: string;
  /** Which policy to load, e.g. `rbac`, `rebac` or `todo`. */
  readonly policyName: string;
  readonly directory: DirectoryData | (() => DirectoryData | undefined);
}

/** A Cedar authorizer that owns its compiled policy (released on `close`). */
export interface OpenedLocalAuthorizer extends LocalAuthorizer {
  readonly policy: CompiledPolicy;
}

/**
 * Cedar in-process, for any app: reads a policy folder, validates and compiles it, runs the
 * tests the folder carries, and returns an {@link Authorizer} that decides over the directory
 * (roles become the user's Cedar parents). An invalid policy throws `PolicyValidationError`
 * naming file and line, one failing its own tests `PolicyTestsFailedError` naming the failing
 * cases; either should stop start-up.
 */
export function openCedarAuthorizer(options: CedarAuthorizerOptions): OpenedLocalAuthorizer {
  const image = readPolicyFolder(options.policyFolder);
  const policy = compilePolicyImage(image);
  try {
    assertPolicyTestsPass(image, policy);
  } catch (err) {
    policy.release();
    throw err;
  }
  const directory = typeof options.directory === 'string' ? loadDirectoryFile(options.directory) : options.directory;
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

/** {@link openCedarAuthorizer} on `policies/<policyName>/` (the sample apps' `local` mode). */
export function openLocalAuthorizer(options: OpenLocalAuthorizerOptions): OpenedLocalAuthorizer {
  if (!POLICY_NAME_PATTERN.test(options.policyName)) throw new RangeError(`invalid policy name ${JSON.stringify(options.policyName)}`);
  const { policiesDir, policyName, ...rest } = options;
  return openCedarAuthorizer({ ...rest, policyFolder: join(policiesDir, policyName) });
}
