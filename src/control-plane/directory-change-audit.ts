import type { DirectoryChangeInput } from './check-directory-change';

/** How a directory change is written to the audit log: what was done, and to which user. */
export interface DirectoryChangeAudit {
  readonly action: string;
  /** The directory user id the change is about. */
  readonly target: string;
}

/**
 * The audit entry of a directory change, the same whether the console or the admin API made
 * it: `directory.user.put` / `directory.user.delete`, `directory.role.grant.<role>` /
 * `directory.role.revoke.<role>`, `directory.relation.add.<relation>.<resource>` /
 * `directory.relation.remove.<relation>.<resource>`; the target is always the user (so the
 * console can name them), the resource rides in the action after the relation.
 */
export function directoryChangeAudit(change: DirectoryChangeInput): DirectoryChangeAudit {
  switch (change.op) {
    case 'user.put':
      return { action: 'directory.user.put', target: change.user.id };
    case 'user.delete':
      return { action: 'directory.user.delete', target: change.user_id };
    case 'role.grant':
    case 'role.revoke':
      return { action: `directory.${change.op}.${change.role}`, target: change.user_id };
    case 'relation.add':
    case 'relation.remove':
      return { action: `directory.${change.op}.${change.relation}.${change.resource_id}`, target: change.user_id };
  }
}
