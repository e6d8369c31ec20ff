import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { DirectoryUser } from '../directory';
import { hashPassword, isPasswordHash, verifyPassword } from './password-hash';
import { FileContentError, readJsonFile, writeFileAtomic } from '../files';

/** A user the IdP can sign in: the directory's stable id (the tokens' `sub`) and profile. */
export interface IdpUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

/** Looks users up by e-mail and checks passwords, without revealing which part failed. */
export interface UserStore {
  /**
   * The user when `username` names one and `password` is theirs, otherwise undefined.
   * An unknown user is checked against a dummy hash, so both failures cost the same.
   */
  authenticate(username: string, password: string): Promise<IdpUser | undefined>;
  /** Every user, without hashes (for tests and the stack banner). */
  list(): readonly IdpUser[];
}

const fileSchema = z.object({
  version: z.literal(1),
  users: z.array(
    z.object({
      id: z.string().min(1),
      email: z.string().min(1),
      name: z.string().min(1),
      password_hash: z.string().refine(isPasswordHash, 'not a supported password hash'),
    }),
  ),
});
type UserFile = z.infer<typeof fileSchema>;

/** E-mail addresses are matched case-insensitively (RFC 5321 local parts rarely differ by case). */
function normalise(email: string): string {
  return email.trim().toLowerCase();
}

/** The stored hashes; `undefined` on first start. A damaged file stops the IdP naming it and the way out. */
function readUserFile(file: string): UserFile | undefined {
  try {
    const raw = readJsonFile(file);
    if (raw === undefined) return undefined;
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) throw new FileContentError(file, 'not a valid users file');
    return parsed.data;
  } catch (err) {
    if (!(err instanceof FileContentError)) throw err;
    throw new Error(
      `${err.message}. It holds the users' password hashes: restore it, or delete it and start again ` +
        'to derive the seeded users\' hashes anew from the demo password.',
      { cause: err },
    );
  }
}

/**
 * Opens `<dataDir>/idp/users.json`. On first start (or when the seed gains a user) the
 * demo password is hashed with a fresh salt per user and only the hashes are written
 * (mode 0600); later starts reuse them. Profile fields follow the seed.
 */
export async function openUserStore(
  file: string,
  seedUsers: readonly DirectoryUser[],
  demoPassword: string,
): Promise<UserStore> {
  const existing = readUserFile(file);
  const stored: UserFile = existing ?? { version: 1, users: [] };
  const hashes = new Map(stored.users.map((u) => [u.id, u.password_hash]));
  const missing = seedUsers.filter((u) => !hashes.has(u.id));
  const derived = await Promise.all(missing.map(() => hashPassword(demoPassword)));
  missing.forEach((u, i) => hashes.set(u.id, derived[i]));

  const seedIds = new Set(seedUsers.map((u) => u.id));
  const records = [
    ...seedUsers.map((u) => ({ id: u.id, email: u.email, name: u.name, password_hash: hashes.get(u.id) as string })),
    ...stored.users.filter((u) => !seedIds.has(u.id)),
  ];
  if (missing.length > 0 || existing === undefined) {
    writeFileAtomic(file, `${JSON.stringify({ version: 1, users: records } satisfies UserFile, null, 2)}\n`);
  }

  const byEmail = new Map(records.map((r) => [normalise(r.email), r]));
  // A hash of a random secret nobody knows: verifying against it costs exactly what a real check costs.
  const dummyHash = await hashPassword(randomBytes(32).toString('base64url'));
  const users = records.map(({ id, email, name }) => Object.freeze({ id, email, name }));

  return {
    async authenticate(username, password) {
      const record = byEmail.get(normalise(username));
      const ok = await verifyPassword(password, record?.password_hash ?? dummyHash);
      return ok && record ? { id: record.id, email: record.email, name: record.name } : undefined;
    },
    list: () => users,
  };
}
