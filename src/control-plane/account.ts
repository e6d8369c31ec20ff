/** Every kind of tenant: one person's account, or an organization with members. */
export const ACCOUNT_KINDS = ['personal', 'organization'] as const;
/** What a tenant is (see {@link ACCOUNT_KINDS}). */
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** Every member role: owners manage members, admins act on edges and keys, viewers only read. */
export const MEMBER_ROLES = ['owner', 'admin', 'viewer'] as const;
/** A member's role (see {@link MEMBER_ROLES}). */
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A user id as the IdP issues it in `sub`: the directory's user id (1–128 characters). */
export const USER_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
