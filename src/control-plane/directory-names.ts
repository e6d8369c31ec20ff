import type { DirectoryData } from '../directory';

/** A directory user's name and e-mail, shown beside the id the console would otherwise show bare. */
export interface DirectoryName {
  readonly name: string;
  readonly email: string;
}

/** Looks up a user id in one tenant's directory. */
export type NameOf = (userId: string) => DirectoryName | undefined;

/**
 * The names of one tenant's directory users, for the answers that would show that tenant's
 * user ids bare (members, audit entries, dry-run principals). Built from the calling tenant's
 * own directory only, so a user that directory lacks stays a bare id even where another
 * tenant's directory knows them: a name never crosses tenants. No directory names nobody.
 */
export function directoryNames(data: DirectoryData | undefined): NameOf {
  const byId = new Map<string, DirectoryName>((data?.users ?? []).map((u) => [u.id, { name: u.name, email: u.email }]));
  return (userId) => byId.get(userId);
}
