/**
 * Policy images: what the edge and the control plane need of them. Reading, compiling and testing
 * an image is the Cedar package's (packages/cedar-authorizer); signing images is the platform's,
 * here.
 */
export {
  createPolicyImage,
  verifyPolicyImage,
  POLICY_IMAGE_LIMITS,
  DIGEST_PATTERN,
  readPolicyFolder,
  compilePolicyImage,
  validatePolicyImage,
  qualifyType,
  localType,
  preparsedCount,
  CedarEngineError,
  isEngineHealthy,
  engineGeneration,
  useBaselineWasm,
  PolicyImageError,
  PolicyImageTooLargeError,
  PolicyValidationError,
  PolicyEvaluationError,
  parsePolicyTests,
  POLICY_TEST_LIMITS,
  SHARED_DIRECTORY_FILE,
  explainDecision,
  policyComment,
  NO_POLICY_PERMITS,
  MAX_REASON_COMMENT,
} from '@outpost/cedar-authorizer';
export type {
  PolicyImage,
  CompiledPolicy,
  PolicyRequest,
  EntityRef,
  PolicySchemaInfo,
  AttributeKind,
  CedarEntity,
  CedarValueJson,
  PolicyTestCase,
  PolicyTestDirectory,
  PolicyTestSuite,
} from '@outpost/cedar-authorizer';
export type { DecisionReason } from '@outpost/express-authz';
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
