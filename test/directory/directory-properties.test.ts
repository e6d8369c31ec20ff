import { applyDirectoryChange, directoryDataSchema, MAX_DIRECTORY_PROPERTIES, type DirectoryData } from '../../src/directory';

// Properties and types of directory users and resources: checked by the directory's
// schema, and kept by every change that rebuilds a user or a resource.

const directory: DirectoryData = {
  revision: 1,
  roles: [{ id: 'manager', includes: [] }],
  users: [
    { id: 'alice', email: 'alice@example.com', name: 'Alice', roles: ['manager'], properties: { department: 'Sales' } },
    { id: 'bob', email: 'bob@example.com', name: 'Bob', roles: [], properties: { department: 'Legal' } },
  ],
  resources: [{ id: '101', type: 'record', properties: { department: 'Legal', owner: 'alice' }, relations: { owner: [], writer: ['bob'], reader: [] } }],
};

describe('directory properties', () => {
  it('are part of the directory the schema reads, types included', () => {
    expect(directoryDataSchema.parse(directory)).toEqual({ roles: directory.roles, users: directory.users, resources: directory.resources });
  });

  it.each([
    ['a nested value', { department: { name: 'Sales' } }],
    ['a name that is no Cedar attribute', { 'the department': 'Sales' }],
    [`over ${MAX_DIRECTORY_PROPERTIES} properties`, Object.fromEntries(Array.from({ length: MAX_DIRECTORY_PROPERTIES + 1 }, (_, i) => [`p${i}`, i]))],
  ])('refuse %s', (_what, properties) => {
    const users = [{ ...directory.users[0]!, properties }];
    expect(directoryDataSchema.safeParse({ ...directory, users }).success).toBe(false);
  });

  it('refuse a resource type that is not a Cedar identifier', () => {
    const resources = [{ ...directory.resources[0]!, type: 'Outpost::record' }];
    expect(directoryDataSchema.safeParse({ ...directory, resources }).success).toBe(false);
  });

  it('survive relation changes and the removal of a user', () => {
    const added = applyDirectoryChange(directory, { rev: 2, op: 'relation.add', resource_id: '101', relation: 'reader', user_id: 'alice' });
    expect(added.resources[0]).toEqual({ ...directory.resources[0], relations: { owner: [], writer: ['bob'], reader: ['alice'] } });
    const removed = applyDirectoryChange(added, { rev: 3, op: 'user.delete', user_id: 'bob' });
    expect(removed.resources[0]).toEqual({ ...directory.resources[0], relations: { owner: [], writer: [], reader: ['alice'] } });
    const granted = applyDirectoryChange(removed, { rev: 4, op: 'role.grant', user_id: 'alice', role: 'manager' });
    expect(granted.users[0]!.properties).toEqual({ department: 'Sales' });
  });
});
