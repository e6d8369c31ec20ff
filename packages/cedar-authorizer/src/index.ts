/**
 * Cedar in-process, for any Express app using @outpost/express-authz: `openCedarAuthorizer`
 * reads a policy folder (its Cedar files, schema and tests) and a directory of users and roles,
 * and answers `requirePermission`'s questions. The rest is what Outpost's own edge authorizer
 * builds on: policy images, their compilation and tests, the directory, the decision cache.
 */
export { openCedarAuthorizer, openLocalAuthorizer } from './open-cedar-authorizer';
export type { CedarAuthorizerOptions, OpenLocalAuthorizerOptions, OpenedLocalAuthorizer } from './open-cedar-authorizer';
export { createLocalAuthorizer } from './local-authorizer';
export type { LocalAuthorizer, LocalDecision, LocalAuthorizerOptions } from './local-authorizer';
export { runPolicyTests, assertPolicyTestsPass, checkPolicyImage, describeTestFailure, PolicyTestsFailedError } from './run-policy-tests';
export type { PolicyTestResult } from './run-policy-tests';
export { buildDirectoryEntities } from './build-entities';
export { createPolicyImage } from './policy-image';
export type { PolicyImage } from './policy-image';
export { verifyPolicyImage, POLICY_IMAGE_LIMITS, DIGEST_PATTERN } from './verify-policy-image';
export { readPolicyFolder } from './read-policy-folder';
export { compilePolicyImage, validatePolicyImage } from './compile-policy-image';
export type { CompiledPolicy, PolicyRequest, PolicyAnswer, EntityRef } from './compiled-policy';
export { qualifyType, localType } from './describe-schema';
export type { PolicySchemaInfo, AttributeKind } from './describe-schema';
export { preparsedCount } from './preparsed-registry';
export { CedarEngineError, isEngineHealthy, engineGeneration } from './cedar-engine';
export { useBaselineWasm } from './use-baseline-wasm';
export { PolicyImageError, PolicyImageTooLargeError, PolicyValidationError, PolicyEvaluationError } from './policy-errors';
export type { EntityJson as CedarEntity, CedarValueJson } from '@cedar-policy/cedar-wasm/nodejs';
export { parsePolicyTests, POLICY_TEST_LIMITS, SHARED_DIRECTORY_FILE } from './policy-tests';
export type { PolicyTestCase, PolicyTestDirectory, PolicyTestSuite } from './policy-tests';
export { explainDecision, policyComment, NO_POLICY_PERMITS, MAX_REASON_COMMENT } from './explain-decision';
export {
  loadDirectorySeed,
  loadDirectoryFile,
  effectiveRoles,
  expandRoles,
  directoryDataSchema,
  RELATIONS,
  resolveUserId,
  identityClashes,
  identitiesSchema,
  MAX_IDENTITIES_PER_USER,
} from './directory-data';
export type { DirectoryData, DirectoryUser, Role, Relation, DirectorySeed } from './directory-data';
export { directoryPropertiesSchema, directoryResourceTypeSchema, DEFAULT_RESOURCE_TYPE, MAX_DIRECTORY_PROPERTIES } from './directory-properties';
export type { DirectoryProperties } from './directory-properties';
export { POLICY_NAME_PATTERN, POLICY_NAME_RULE, POLICY_PATH_PATTERN, isPolicyName } from './policy-name';
