/**
 * The decision wire format shared by the edge authorizer (which serves it) and the apps'
 * `edge` authorizer (which calls it): the Topaz-shaped `is` request and the policy-name
 * rule that every component checks names against.
 */
export { isRequestSchema, splitPolicyPath, IDENTITY_TYPES } from './is-request';
export type { IsRequest, IdentityType } from './is-request';
export { POLICY_NAME_PATTERN, POLICY_NAME_RULE, POLICY_PATH_PATTERN, isPolicyName } from './policy-name';
