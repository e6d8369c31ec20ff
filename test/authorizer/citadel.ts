import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { loadDirectorySeed, type DirectoryData } from '../../src/directory';
import type { AuthorizationRequest } from '../../src/authorizer';

export const root = findProjectRoot();
export const policiesDir = join(root, 'policies');

/** The real seed directory shared with the IdP. */
export function citadel(): DirectoryData {
  return loadDirectorySeed(join(root, 'data', 'citadel-directory.json')).directory;
}

/** Demo user ids by first name. */
export function userIds(directory: DirectoryData): Record<'rick' | 'morty' | 'summer' | 'beth' | 'jerry', string> {
  const byName = (name: string) => directory.users.find((u) => u.email.startsWith(`${name}@`))!.id;
  return { rick: byName('rick'), morty: byName('morty'), summer: byName('summer'), beth: byName('beth'), jerry: byName('jerry') };
}

/** A request for `/resource/<name>` under `<policy>.<METHOD>`. */
export function resourceRequest(policy: string, principal: string, method: string, name: string): AuthorizationRequest {
  return { principal, action: method, resource: { type: 'Resource', id: name }, policyPath: `${policy}.${method}` };
}
