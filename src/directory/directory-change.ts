import { z } from 'zod';
import { directoryPropertiesSchema, identitiesSchema, RELATIONS, type DirectoryData } from '@outpost/cedar-authorizer';

const userId = z.string().min(1).max(128);
const roleId = z.string().regex(/^[a-z_][a-z0-9_]*$/).max(64);
const resourceId = z.string().regex(/^[A-Za-z0-9._-]+$/).max(128);

/**
 * One entry of the central directory's change log. Edges replay these in `rev` order to
 * sync incrementally; the same function applies them at the centre and at the edge, so
 * both arrive at the same data.
 */
export const directoryChangeSchema = z.discriminatedUnion('op', [
  z.object({
    rev: z.number().int().positive(),
    op: z.literal('user.put'),
    user: z.object({
      id: userId,
      email: z.email(),
      name: z.string().min(1).max(200),
      roles: z.array(roleId),
      identities: identitiesSchema.optional(),
      properties: directoryPropertiesSchema.optional(),
    }),
  }),
  z.object({ rev: z.number().int().positive(), op: z.literal('user.delete'), user_id: userId }),
  z.object({ rev: z.number().int().positive(), op: z.literal('role.grant'), user_id: userId, role: roleId }),
  z.object({ rev: z.number().int().positive(), op: z.literal('role.revoke'), user_id: userId, role: roleId }),
  z.object({
    rev: z.number().int().positive(),
    op: z.literal('relation.add'),
    resource_id: resourceId,
    relation: z.enum(RELATIONS),
    user_id: userId,
  }),
  z.object({
    rev: z.number().int().positive(),
    op: z.literal('relation.remove'),
    resource_id: resourceId,
    relation: z.enum(RELATIONS),
    user_id: userId,
  }),
]);

export type DirectoryChange = z.infer<typeof directoryChangeSchema>;

/**
 * Returns the directory with one change applied (the input is not modified) and its
 * revision set to the change's `rev`. Changes are idempotent: granting a held role or
 * removing an absent relation leaves the data as it was.
 */
export function applyDirectoryChange(data: DirectoryData, change: DirectoryChange): DirectoryData {
  const users = [...data.users];
  let resources = [...data.resources];
  const userIndex = (id: string) => users.findIndex((u) => u.id === id);
  switch (change.op) {
    case 'user.put': {
      const i = userIndex(change.user.id);
      if (i >= 0) users[i] = change.user;
      else users.push(change.user);
      break;
    }
    case 'user.delete': {
      const i = userIndex(change.user_id);
      if (i >= 0) users.splice(i, 1);
      resources = resources.map((r) => ({
        ...r,
        relations: {
          owner: r.relations.owner.filter((u) => u !== change.user_id),
          writer: r.relations.writer.filter((u) => u !== change.user_id),
          reader: r.relations.reader.filter((u) => u !== change.user_id),
        },
      }));
      break;
    }
    case 'role.grant':
    case 'role.revoke': {
      const i = userIndex(change.user_id);
      if (i < 0) break;
      const user = users[i]!;
      const roles = user.roles.filter((r) => r !== change.role);
      if (change.op === 'role.grant') roles.push(change.role);
      users[i] = { ...user, roles };
      break;
    }
    case 'relation.add':
    case 'relation.remove': {
      let i = resources.findIndex((r) => r.id === change.resource_id);
      if (i < 0) {
        if (change.op === 'relation.remove') break;
        resources.push({ id: change.resource_id, relations: { owner: [], writer: [], reader: [] } });
        i = resources.length - 1;
      }
      const resource = resources[i]!;
      const holders = resource.relations[change.relation].filter((u) => u !== change.user_id);
      if (change.op === 'relation.add') holders.push(change.user_id);
      resources[i] = { ...resource, relations: { ...resource.relations, [change.relation]: holders } };
      break;
    }
  }
  return { revision: change.rev, roles: data.roles, users, resources };
}
