import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import {
  compilePolicyImage,
  createPolicyImage,
  PolicyEvaluationError,
  PolicyValidationError,
  preparsedCount,
  readPolicyFolder,
  type PolicyRequest,
} from '../../src/policy';

const policiesDir = join(findProjectRoot(), 'policies');

describe('compilePolicyImage', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'outpost-compile-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** A copy of policies/<name> with extra or replaced files. */
  function variant(name: string, files: Record<string, string>): string {
    const dir = join(tmp, name);
    cpSync(join(policiesDir, name), dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return dir;
  }

  function compileError(dir: string): PolicyValidationError {
    try {
      compilePolicyImage(readPolicyFolder(dir));
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyValidationError);
      return err as PolicyValidationError;
    }
    throw new Error('expected a PolicyValidationError');
  }

  it.each(['rbac', 'rebac', 'todo'])('compiles policies/%s with policy ids naming file and line', (name) => {
    const compiled = compilePolicyImage(readPolicyFolder(join(policiesDir, name)));
    expect(compiled.name).toBe(name);
    expect(compiled.schema.namespace).toBe('Outpost');
    expect(compiled.policyIds.length).toBeGreaterThan(0);
    for (const id of compiled.policyIds) expect(id).toMatch(/^[a-z]+\.cedar:\d+$/);
    compiled.release();
  });

  it('names the file and line of a syntax error in the second of several files', () => {
    const dir = variant('rbac', { 'zz-extra.cedar': '// extra\n\npermit(principal, action, resource)\n  when { principal.name == };\n' });
    const err = compileError(dir);
    expect(err.message).toMatch(/^invalid policy image "rbac":\n {2}zz-extra\.cedar:4: .*unexpected token `}`/);
  });

  it('names the file and line of a schema violation (unknown attribute)', () => {
    const dir = variant('rebac', {
      'writer.cedar': '// writers\n\n\npermit (\n  principal,\n  action,\n  resource is Outpost::Resource\n)\nwhen { resource.editors.contains(principal) };\n',
    });
    const err = compileError(dir);
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(/^writer\.cedar:9: .*attribute `editors` on entity type `Outpost::Resource` not found/);
  });

  it('counts lines correctly after non-ASCII text (Cedar offsets are UTF-8 bytes)', () => {
    const dir = variant('rbac', { 'rbac.cedar': '// Größe — ünïcødé\npermit(principal, action, resource)\nwhen { principal.nickname == "é" };\n' });
    expect(compileError(dir).problems[0]).toMatch(/^rbac\.cedar:3: .*attribute `nickname`/);
  });

  it('names the line of a schema syntax error', () => {
    const dir = variant('rbac', { 'schema.cedarschema': 'namespace Outpost {\n  entity User;\n  entity Resource\n}\n' });
    expect(compileError(dir).problems[0]).toMatch(/^schema\.cedarschema:4: .*unexpected token `}`/);
  });

  it('names the schema file for a schema that parses but does not build (an action hierarchy with a cycle)', () => {
    const schema = readPolicyFolder(join(policiesDir, 'rbac')).files['schema.cedarschema']!.replace('entity Resource;', 'entity Resource;\n  action A in [B];\n  action B in [A];');
    const dir = variant('rbac', { 'schema.cedarschema': schema });
    expect(compileError(dir).problems).toEqual([expect.stringMatching(/^schema\.cedarschema: cycle in action hierarchy/)]);
  });

  it('rejects an action the schema does not declare', () => {
    const dir = variant('rbac', { 'rbac.cedar': 'permit(principal, action == Outpost::Action::"PATCH", resource);\n' });
    expect(compileError(dir).problems[0]).toMatch(/^rbac\.cedar:1: .*PATCH/);
  });

  it('evaluates against the pre-parsed set and shares it between compilations of one digest', () => {
    const image = readPolicyFolder(join(policiesDir, 'rbac'));
    const before = preparsedCount();
    const a = compilePolicyImage(image);
    const b = compilePolicyImage(createPolicyImage(image.name, image.files));
    expect(preparsedCount()).toBe(before + 1);
    const request: PolicyRequest = {
      principal: { type: 'Outpost::User', id: 'u1' },
      action: 'GET',
      resource: { type: 'Outpost::Resource', id: 'r' },
      entities: [
        { uid: { type: 'Outpost::User', id: 'u1' }, attrs: { email: 'u@x', name: 'U' }, parents: [{ type: 'Outpost::Role', id: 'viewer' }] },
        { uid: { type: 'Outpost::Role', id: 'viewer' }, attrs: {}, parents: [] },
      ],
    };
    expect(a.isAuthorized(request)).toEqual({ allowed: true, reasons: ['rbac.cedar:5'], errors: [] });
    expect(a.isAuthorized({ ...request, action: 'DELETE' })).toEqual({ allowed: false, reasons: [], errors: [] });
    // An action outside the schema is denied without asking Cedar.
    expect(a.isAuthorized({ ...request, action: 'PATCH' }).allowed).toBe(false);
    // Entities that break the schema are a Cedar failure, not a deny.
    expect(() => a.isAuthorized({ ...request, entities: [{ ...request.entities[0]!, attrs: { email: 1, name: 'U' } }] })).toThrow(PolicyEvaluationError);
    a.release();
    expect(b.isAuthorized(request).allowed).toBe(true); // still held by b
    b.release();
    expect(preparsedCount()).toBe(before);
    expect(() => b.isAuthorized(request)).toThrow(/was released/);
  });
});
