import { identityClashes, type DirectoryChange, type DirectoryData } from '../directory';
import { BadRequestError, NotFoundError } from '../http';

/** A directory change before the store has given it a revision. */
export type DirectoryChangeInput = DirectoryChange extends infer C ? (C extends DirectoryChange ? Omit<C, 'rev'> : never) : never;

/**
 * Refuses a change that names something the directory does not hold: an unknown role
 * (400, the caller's input is wrong) or an unknown user (404). Runs inside the write
 * transaction, against the data the change will be applied to.
 */
export function checkDirectoryChange(data: DirectoryData, change: DirectoryChangeInput): void {
  const roles = new Set(data.roles.map((r) => r.id));
  const requireUser = (id: string) => {
    if (!data.users.some((u) => u.id === id)) throw new NotFoundError(`unknown user ${id}`, 'unknown_user');
  };
  const requireRole = (role: string) => {
    if (!roles.has(role)) throw new BadRequestError(`unknown role ${role}`, 'unknown_role');
  };
  switch (change.op) {
    case 'user.put': {
      change.user.roles.forEach(requireRole);
      const clash = data.users.find((u) => u.email === change.user.email && u.id !== change.user.id);
      if (clash) throw new BadRequestError(`e-mail ${change.user.email} belongs to another user`, 'duplicate_email');
      // Every identity must name one user, or a decision could not tell whom it means.
      const others = data.users.filter((u) => u.id !== change.user.id);
      const [identityClash] = identityClashes([...others, change.user]);
      if (identityClash !== undefined) throw new BadRequestError(`identity ${identityClash}`, 'duplicate_identity');
      return;
    }
    case 'user.delete':
      requireUser(change.user_id);
      return;
    case 'role.grant':
    case 'role.revoke':
      requireRole(change.role);
      requireUser(change.user_id);
      return;
    case 'relation.add':
    case 'relation.remove':
      requireUser(change.user_id);
      return;
  }
}
