import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { requirePermission } from '@outpost/express-authz';
import { openCedarAuthorizer, PolicyTestsFailedError, PolicyValidationError } from '../src';

// A policy folder and a directory file as an app of one's own keeps them: who may delete a document.
const SCHEMA = `namespace Docs {
  entity Role;
  entity User in [Role];
  entity Document;
  action read, delete appliesTo { principal: User, resource: Document };
}
`;
const POLICY = `// Writers delete.
permit (principal in Docs::Role::"writer", action == Docs::Action::"delete", resource);
// Everyone reads.
permit (principal, action == Docs::Action::"read", resource);
`;
const DIRECTORY = {
  roles: [{ id: 'writer', includes: [] }, { id: 'reader', includes: [] }],
  users: [
    { id: 'u-ada', email: 'ada@example.com', name: 'Ada', roles: ['writer'] },
    { id: 'u-bob', email: 'bob@example.com', name: 'Bob', roles: ['reader'] },
  ],
  resources: [],
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cedar-authorizer-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'manifest.json'), JSON.stringify({ name: 'docs', description: 'who may read and delete documents' }));
  writeFileSync(join(root, 'docs', 'docs.cedar'), POLICY);
  writeFileSync(join(root, 'docs', 'schema.cedarschema'), SCHEMA);
  writeFileSync(join(root, 'directory.json'), JSON.stringify(DIRECTORY));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const question = (principal: string, action: string) => ({ principal, action, resource: { type: 'Document', id: 'd1' }, policyPath: `docs.${action}` });

describe('openCedarAuthorizer', () => {
  it('decides over a policy folder and a directory file: roles are the users’ Cedar parents', async () => {
    const cedar = openCedarAuthorizer({ policyFolder: join(root, 'docs'), directory: join(root, 'directory.json') });
    try {
      expect((await cedar.authorize(question('u-ada', 'delete'))).allowed).toBe(true);
      expect((await cedar.authorize(question('u-bob', 'delete'))).allowed).toBe(false);
      expect((await cedar.authorize(question('u-bob', 'read'))).allowed).toBe(true);
      expect((await cedar.authorize(question('u-nobody', 'read'))).allowed).toBe(false); // not in the directory
    } finally {
      await cedar.close();
    }
  });

  it('plugs into requirePermission: 200 for a writer, 403 JSON for a reader', async () => {
    const cedar = openCedarAuthorizer({ policyFolder: join(root, 'docs'), directory: join(root, 'directory.json') });
    const app = express();
    app.delete('/docs/:id', (req, _res, next) => {
      req.auth = { sub: String(req.headers['x-user']), iss: 'test', aud: 'test', exp: 0 };
      next();
    }, requirePermission(cedar, { policy: 'docs', action: 'delete', resource: (req) => ({ type: 'Document', id: String(req.params.id) }) }), (_req, res) => res.send('deleted'));
    try {
      expect((await request(app).delete('/docs/d1').set('x-user', 'u-ada')).status).toBe(200);
      const denied = await request(app).delete('/docs/d1').set('x-user', 'u-bob');
      expect([denied.status, denied.body]).toEqual([403, { code: 'forbidden', message: 'Forbidden by policy docs.delete' }]);
    } finally {
      await cedar.close();
    }
  });

  it('refuses a policy Cedar refuses, naming the file and line, and a folder whose own tests fail', () => {
    writeFileSync(join(root, 'docs', 'docs.cedar'), 'permit (principal, action == Docs::Action::"nope", resource);\n');
    expect(() => openCedarAuthorizer({ policyFolder: join(root, 'docs'), directory: join(root, 'directory.json') })).toThrow(PolicyValidationError);
    writeFileSync(join(root, 'docs', 'docs.cedar'), POLICY);
    mkdirSync(join(root, 'docs', 'tests'));
    writeFileSync(join(root, 'docs', 'tests', 'directory.json'), JSON.stringify(DIRECTORY));
    writeFileSync(join(root, 'docs', 'tests', 'docs.json'), JSON.stringify([{ name: 'a reader deletes', request: { principal: 'u-bob', action: 'delete', resource: { type: 'Document', id: 'd1' } }, decision: 'allow' }]));
    expect(() => openCedarAuthorizer({ policyFolder: join(root, 'docs'), directory: join(root, 'directory.json') })).toThrow(PolicyTestsFailedError);
  });

  it('refuses a directory file that names an unknown role', () => {
    writeFileSync(join(root, 'directory.json'), JSON.stringify({ ...DIRECTORY, users: [{ id: 'u-x', email: 'x@example.com', name: 'X', roles: ['ghost'] }] }));
    expect(() => openCedarAuthorizer({ policyFolder: join(root, 'docs'), directory: join(root, 'directory.json') })).toThrow(/unknown role ghost/);
  });
});
