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
  /**
   * Derives what the first check needs (see {@link openUserStore}); `authenticate` awaits it
   * too. The password check awaits it before it takes a hashing slot, so a first sign-in does
   * not hold one while the seeded users' hashes are derived.
   */
  prepare?(): Promise<void>;
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
 * Opens `<dataDir>/idp/users.json` (a damaged file stops the IdP here, at start). The
 * demo password is hashed with a fresh salt per seeded user that has no hash yet, and only
 * the hashes are written (mode 0600); later starts reuse them. Profile fields follow the seed.
 * That hashing (scrypt, ~60 ms of CPU a user: ~0.8 s for the demo directory) and the dummy
 * hash below are derived at the first password check, for every user alike, not at start:
 * an IdP that is started and never signed in to (most of a test suite's stacks) never pays
 * them, and a start reaches its banner sooner (issue 35). Every check waits for the same
 * derivation, so which user or password is tried changes nothing in the first one's timing.
 */
export async function openUserStore(
  file: string,
  seedUsers: readonly DirectoryUser[],
  demoPassword: string,
): Promise<UserStore> {
  const existing = readUserFile(file);
  const stored: UserFile = existing ?? { version: 1, users: [] };
  const hashes = new Map(stored.users.map((u) => [u.id, u.password_hash]));
  const seedIds = new Set(seedUsers.map((u) => u.id));
  const profiles = [
    ...seedUsers.map((u) => ({ id: u.id, email: u.email, name: u.name })),
    ...stored.users.filter((u) => !seedIds.has(u.id)).map(({ id, email, name }) => ({ id, email, name })),
  ];
  const users = profiles.map((p) => Object.freeze(p));

  interface Prepared {
    readonly byEmail: ReadonlyMap<string, { readonly user: IdpUser; readonly hash: string }>;
    /** A hash of a random secret nobody knows: verifying against it costs exactly what a real check costs. */
    readonly dummyHash: string;
  }
  const derive = async (): Promise<Prepared> => {
    const missing = seedUsers.filter((u) => !hashes.has(u.id));
    const [dummyHash, ...derived] = await Promise.all([randomBytes(32).toString('base64url'), ...missing.map(() => demoPassword)].map((p) => hashPassword(p)));
    const fresh = new Map(missing.map((u, i) => [u.id, derived[i] as string]));
    const records = users.map((u) => ({ ...u, password_hash: (hashes.get(u.id) ?? fresh.get(u.id)) as string }));
    if (missing.length > 0 || existing === undefined) {
      writeFileAtomic(file, `${JSON.stringify({ version: 1, users: records } satisfies UserFile, null, 2)}\n`);
    }
    // Kept only once written: after a failed write the next check derives and writes them again.
    for (const [id, hash] of fresh) hashes.set(id, hash);
    return { byEmail: new Map(records.map((r, i) => [normalise(r.email), { user: users[i] as IdpUser, hash: r.password_hash }])), dummyHash: dummyHash as string };
  };
  let prepared: Promise<Prepared> | undefined;
  // Derived once; a failure (a full disk) is not kept: the next check tries again.
  const prepare = (): Promise<Prepared> => {
    prepared ??= derive().catch((err: unknown) => {
      prepared = undefined;
      throw err;
    });
    return prepared;
  };

  return {
    async authenticate(username, password) {
      const { byEmail, dummyHash } = await prepare();
      const record = byEmail.get(normalise(username));
      const ok = await verifyPassword(password, record?.hash ?? dummyHash);
      return ok && record ? { ...record.user } : undefined;
    },
    async prepare() {
      await prepare();
    },
    list: () => users,
  };
}
