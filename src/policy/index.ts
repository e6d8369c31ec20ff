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
  qualifyType,
  localType,
  preparsedCount,
  isEngineHealthy,
  useBaselineWasm,
  PolicyImageError,
  PolicyImageTooLargeError,
  PolicyValidationError,
  PolicyEvaluationError,
  parsePolicyTests,
  POLICY_TEST_LIMITS,
  explainDecision,
  policyComment,
  NO_POLICY_PERMITS,
  MAX_REASON_COMMENT,
} from '@outpost/cedar-authorizer';
export type {
  PolicyImage,
  CompiledPolicy,
  PolicyRequest,
  PolicySchemaInfo,
  PolicyTestCase,
} from '@outpost/cedar-authorizer';
export {
  signPolicyImage,
  verifyImageSignature,
  signingKeyId,
  publicPart,
  publicSigningKeySchema,
  addSigningKeyBodySchema,
  signingKeyShape,
  privateSigningKeySchema,
  signingKeySetSchema,
  signatureSchema,
  SIGNING_KEY_LIMITS,
} from './image-signature';
export type { PublicSigningKey, PrivateSigningKey } from './image-signature';
export { PolicySignatureError, signedVersionSchema, MAX_SIGNED_VERSION } from './signed-image-claims';
