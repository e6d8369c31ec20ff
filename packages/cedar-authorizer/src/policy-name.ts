/**
 * The one rule for policy names. A name is a folder under `policies/`, a URL segment of the
 * policy registry (`/api/v2/admin/policies/:name`), the first part of a decision path
 * (`rbac.DELETE`) and a value of `RBAC_POLICY`, so every one of them checks it here.
 */
export const POLICY_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What {@link POLICY_NAME_PATTERN} allows, in words, for error messages. */
export const POLICY_NAME_RULE = 'policy name must match [a-z0-9][a-z0-9_-]{0,63}: 1-64 characters of a-z, 0-9, _ and -';

/** A decision path: `<policy name>.<action>`, e.g. `rbac.DELETE`. */
export const POLICY_PATH_PATTERN = new RegExp(`^${POLICY_NAME_PATTERN.source.slice(1, -1)}\\.[A-Za-z0-9_:-]{1,64}$`);

/** True when `name` follows the policy-name rule. */
export function isPolicyName(name: string): boolean {
  return POLICY_NAME_PATTERN.test(name);
}
