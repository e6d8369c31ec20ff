import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { directoryPropertiesSchema, directoryResourceTypeSchema } from './directory-properties';

/** Relations a user can hold on a resource, strongest first. */
export const RELATIONS = ['owner', 'writer', 'reader'] as const;
export type Relation = (typeof RELATIONS)[number];

const roleSchema = z.object({ id: z.string().regex(/^[a-z_][a-z0-9_]*$/), includes: z.array(z.string()) });
/** Most identities one user may hold (docs/reference/limits.md). */
export const MAX_IDENTITIES_PER_USER = 16;

/**
 * Other ids the same user is known by — the IdP's `sub` when it differs from the directory
 * id, an external IdP's subject (e.g. a Dex id), a login name — as Topaz's directory links
 * identities to users. Each resolves to the user wherever a decision names a user.
 */
export const identitiesSchema = z.array(z.string().min(1).max(256)).max(MAX_IDENTITIES_PER_USER);

const userSchema = z.object({
  id: z.string().min(1),
  email: z.email(),
  name: z.string().min(1),
  roles: z.array(z.string()),
  identities: identitiesSchema.optional(),
  properties: directoryPropertiesSchema.optional(),
});
const resourceSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/),
  type: directoryResourceTypeSchema.optional(),
  properties: directoryPropertiesSchema.optional(),
  /** Relation → user ids (the seed file may name users by e-mail; they are resolved on load). */
  relations: z.object({ owner: z.array(z.string()), writer: z.array(z.string()), reader: z.array(z.string()) }),
});

export const directoryDataSchema = z.object({
  roles: z.array(roleSchema),
  users: z.array(userSchema),
  resources: z.array(resourceSchema),
});

export type Role = z.infer<typeof roleSchema>;
export type DirectoryUser = z.infer<typeof userSchema>;
export type DirectoryResource = z.infer<typeof resourceSchema>;

/**
 * The directory's content: who the users are, what roles exist and nest, and who
 * holds which relation on which resource. Roles come from here, never from a token.
 * `revision` increases with every change (the central directory's change counter).
 */
export interface DirectoryData {
  readonly revision: number;
  readonly roles: readonly Role[];
  readonly users: readonly DirectoryUser[];
  readonly resources: readonly DirectoryResource[];
}

/** The seed file adds the demo password (used by the IdP at first start only). */
export interface DirectorySeed {
  readonly demoPassword: string;
  readonly directory: DirectoryData;
}

const seedSchema = directoryDataSchema.extend({ demo_password: z.string().min(8).optional() });

/**
 * Reads and checks the seed file. Users named by e-mail in resource relations are
 * resolved to their ids; unknown roles or users are reported, not ignored.
 */
export function loadDirectorySeed(file: string): DirectorySeed {
  const { demoPassword, directory } = readDirectory(file);
  if (demoPassword === undefined) throw new Error(`invalid directory seed ${file}: no demo_password`);
  return { demoPassword, directory };
}

/** A directory file (`{ roles, users, resources? }`, checked as {@link loadDirectorySeed} checks a seed). */
export function loadDirectoryFile(file: string): DirectoryData {
  return readDirectory(file).directory;
}

function readDirectory(file: string): { demoPassword: string | undefined; directory: DirectoryData } {
  const raw = seedSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const byEmail = new Map(raw.users.map((u) => [u.email, u.id]));
  const userIds = new Set(raw.users.map((u) => u.id));
  const roleIds = new Set(raw.roles.map((r) => r.id));
  const problems: string[] = [];
  for (const role of raw.roles) {
    for (const inc of role.includes) if (!roleIds.has(inc)) problems.push(`role ${role.id} includes unknown role ${inc}`);
  }
  for (const user of raw.users) {
    for (const role of user.roles) if (!roleIds.has(role)) problems.push(`user ${user.email} has unknown role ${role}`);
  }
  problems.push(...identityClashes(raw.users));
  const resolveUser = (ref: string) => {
    const id = byEmail.get(ref) ?? (userIds.has(ref) ? ref : undefined);
    if (!id) problems.push(`unknown user ${ref} in resource relations`);
    return id ?? ref;
  };
  const resources = raw.resources.map((r) => ({
    ...r,
    relations: {
      owner: r.relations.owner.map(resolveUser),
      writer: r.relations.writer.map(resolveUser),
      reader: r.relations.reader.map(resolveUser),
    },
  }));
  if (problems.length > 0) throw new Error(`invalid directory seed ${file}: ${problems.join('; ')}`);
  return {
    demoPassword: raw.demo_password,
    directory: { revision: 1, roles: raw.roles, users: raw.users, resources },
  };
}

/**
 * Every id a user is known by — its id, its e-mail and its identities — that also names
 * another user, as `"<id>" names both <user> and <user>`. An identity must point at one user.
 */
export function identityClashes(users: readonly DirectoryUser[]): string[] {
  const owner = new Map<string, string>();
  const problems: string[] = [];
  for (const user of users) {
    for (const name of new Set([user.id, user.email, ...(user.identities ?? [])])) {
      const other = owner.get(name);
      if (other !== undefined && other !== user.id) problems.push(`"${name}" names both ${other} and ${user.id}`);
      else owner.set(name, user.id);
    }
  }
  return problems;
}

const identityIndexes = new WeakMap<DirectoryData, ReadonlyMap<string, string>>();

/**
 * The directory user an id names: a user id, an e-mail address or one of a user's
 * identities, resolved to the user's id; an id that names no user comes back unchanged
 * (and is then denied as unknown). The index is built once per directory snapshot. Ids
 * win over e-mails, e-mails over identities, should the directory ever hold a clash.
 */
export function resolveUserId(directory: DirectoryData, name: string): string {
  let index = identityIndexes.get(directory);
  if (!index) {
    const built = new Map<string, string>();
    for (const u of directory.users) for (const identity of u.identities ?? []) built.set(identity, u.id);
    for (const u of directory.users) built.set(u.email, u.id);
    for (const u of directory.users) built.set(u.id, u.id);
    identityIndexes.set(directory, built);
    index = built;
  }
  return index.get(name) ?? name;
}

/**
 * The roles that `roles` stand for, with nested roles expanded (admin ⊃ editor ⊃ viewer),
 * each once; cycles in `includes` are harmless.
 */
export function expandRoles(directory: Pick<DirectoryData, 'roles'>, roles: readonly string[]): string[] {
  const includes = new Map(directory.roles.map((r) => [r.id, r.includes]));
  const seen = new Set<string>();
  const stack = [...roles];
  while (stack.length > 0) {
    const role = stack.pop() as string;
    if (seen.has(role)) continue;
    seen.add(role);
    stack.push(...(includes.get(role) ?? []));
  }
  return [...seen];
}

/** Every role a user holds, with nested roles expanded, sorted. */
export function effectiveRoles(directory: DirectoryData, userId: string): string[] {
  const user = directory.users.find((u) => u.id === userId);
  return user ? expandRoles(directory, user.roles).sort() : [];
}
