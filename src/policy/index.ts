export { createPolicyImage } from './policy-image';
export type { PolicyImage } from './policy-image';
export { verifyPolicyImage, POLICY_IMAGE_LIMITS, DIGEST_PATTERN } from './verify-policy-image';
export { readPolicyFolder } from './read-policy-folder';
export { compilePolicyImage, validatePolicyImage } from './compile-policy-image';
export type { CompiledPolicy, PolicyRequest, EntityRef } from './compiled-policy';
export { qualifyType, localType } from './describe-schema';
export type { PolicySchemaInfo, AttributeKind } from './describe-schema';
export { preparsedCount } from './preparsed-registry';
export { CedarEngineError, isEngineHealthy, engineGeneration } from './cedar-engine';
export { useBaselineWasm } from './use-baseline-wasm';
export {
  PolicyImageError,
  PolicyImageTooLargeError,
  PolicyValidationError,
  PolicyEvaluationError,
} from './policy-errors';
export type { EntityJson as CedarEntity, CedarValueJson } from '@cedar-policy/cedar-wasm/nodejs';
export { parsePolicyTests, POLICY_TEST_LIMITS, SHARED_DIRECTORY_FILE } from './policy-tests';
export type { PolicyTestCase, PolicyTestDirectory, PolicyTestSuite } from './policy-tests';
export {
  signPolicyImage,
  verifyImageSignature,
  signingKeyId,
  publicPart,
  publicSigningKeySchema,
  privateSigningKeySchema,
  signingKeySetSchema,
  signatureSchema,
  SIGNING_KEY_LIMITS,
} from './image-signature';
export type { PublicSigningKey, PrivateSigningKey } from './image-signature';
export { PolicySignatureError, signedVersionSchema, MAX_SIGNED_VERSION } from './signed-image-claims';
export { explainDecision, policyComment, NO_POLICY_PERMITS, MAX_REASON_COMMENT } from './explain-decision';
export type { DecisionReason } from './explain-decision';
