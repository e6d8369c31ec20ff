import { applyDirectoryChange, type DirectoryData } from '../../src/directory';
import { AuthorizerUnavailableError, createLocalAuthorizer } from '../../src/decision';
import { compilePolicyImage, createPolicyImage, readPolicyFolder, type CompiledPolicy } from '../../src/policy';
import { join } from 'node:path';
import { citadel, policiesDir, resourceRequest, userIds } from '../authorizer/citadel';

const seed = citadel();
const users = userIds(seed);
const rbacImage = readPolicyFolder(join(policiesDir, 'rbac'));
let rbac: CompiledPolicy;
let rbacNoDelete: CompiledPolicy;
// rebac reads the resource (its owners, writers and readers): every resource id is its own question.
let rebac: CompiledPolicy;
beforeAll(() => {
  rbac = compilePolicyImage(rbacImage);
  rebac = compilePolicyImage(readPolicyFolder(join(policiesDir, 'rebac')));
  // Same policy with admins' blanket permit removed: a new digest.
  const text = (rbacImage.files['rbac.cedar'] as string).replace(/\/\/ Admins[\s\S]*$/, '');
  rbacNoDelete = compilePolicyImage(createPolicyImage('rbac', { ...rbacImage.files, 'rbac.cedar': text }));
});
afterAll(() => {
  rbac.release();
  rbacNoDelete.release();
  rebac.release();
});

const deleteBy = (user: string) => resourceRequest('rbac', user, 'DELETE', 'x');

describe('createLocalAuthorizer', () => {
  it('caches decisions and misses the cache after a directory revision (Morty made admin)', async () => {
    let directory: DirectoryData = seed;
    const authorizer = createLocalAuthorizer({ policy: () => rbac, directory: () => directory });
    expect(await authorizer.authorize(deleteBy(users.morty))).toMatchObject({ allowed: false, cached: false, directoryRevision: 1 });
    expect(await authorizer.authorize(deleteBy(users.morty))).toMatchObject({ allowed: false, cached: true });
    expect(authorizer.stats()).toEqual({ hits: 1, misses: 1, size: 1 });

    directory = applyDirectoryChange(directory, { rev: 2, op: 'role.grant', user_id: users.morty, role: 'admin' });
    expect(await authorizer.authorize(deleteBy(users.morty))).toMatchObject({ allowed: true, cached: false, directoryRevision: 2 });
    expect(await authorizer.authorize(deleteBy(users.morty))).toMatchObject({ allowed: true, cached: true });

    directory = applyDirectoryChange(directory, { rev: 3, op: 'role.revoke', user_id: users.morty, role: 'admin' });
    expect((await authorizer.authorize(deleteBy(users.morty))).allowed).toBe(false);
    await authorizer.close();
  });

  it('empties the cache on a policy swap (new digest), also when swapping back', async () => {
    let policy = rbac;
    const authorizer = createLocalAuthorizer({ policy: () => policy, directory: () => seed });
    expect(await authorizer.authorize(deleteBy(users.rick))).toMatchObject({ allowed: true, policyDigest: rbac.digest });
    expect((await authorizer.authorize(deleteBy(users.rick))).cached).toBe(true);
    policy = rbacNoDelete;
    expect(await authorizer.authorize(deleteBy(users.rick))).toMatchObject({ allowed: false, cached: false, policyDigest: rbacNoDelete.digest });
    policy = rbac;
    expect(await authorizer.authorize(deleteBy(users.rick))).toMatchObject({ allowed: true, cached: false, policyDigest: rbac.digest });
    expect(authorizer.stats().size).toBe(1); // only the current pair's answers are held
    await authorizer.close();
  });

  it('keys the cache on resource attributes and is bounded', async () => {
    const authorizer = createLocalAuthorizer({ policy: () => rebac, directory: () => seed, cacheSize: 2 });
    const base = resourceRequest('rebac', users.beth, 'GET', 'a');
    await authorizer.authorize(base);
    await authorizer.authorize({ ...base, resource: { ...base.resource, attributes: { x: 1 } } });
    expect(authorizer.stats()).toMatchObject({ misses: 2, size: 2 });
    await authorizer.authorize(resourceRequest('rebac', users.beth, 'GET', 'b'));
    expect(authorizer.stats()).toMatchObject({ misses: 3, size: 2 });
    await authorizer.authorize(base); // evicted as the oldest
    expect(authorizer.stats()).toMatchObject({ hits: 0, misses: 4 });
    await authorizer.close();
  });

  it('never lets two different requests share a cache key (length-prefixed parts, typed attributes)', async () => {
    const authorizer = createLocalAuthorizer({ policy: () => rebac, directory: () => seed });
    const base = resourceRequest('rebac', users.beth, 'GET', 'a');
    const variants = [
      base,
      { ...base, resource: { ...base.resource, id: 'a|1:x' } },
      { ...base, resource: { ...base.resource, attributes: { x: 1 } } },
      { ...base, resource: { ...base.resource, attributes: { x: '1' } } },
      { ...base, resource: { ...base.resource, attributes: { x: true } } },
      { ...base, resource: { ...base.resource, attributes: { x: 'true' } } },
      { ...base, principal: `${users.beth}4:GET` },
    ];
    for (const request of variants) await authorizer.authorize(request);
    expect(authorizer.stats()).toMatchObject({ hits: 0, misses: variants.length });
    await authorizer.close();
  });

  it('fails closed with AuthorizerUnavailableError when the policy or the directory is missing', async () => {
    const noPolicy = createLocalAuthorizer({ policy: () => undefined, directory: () => seed });
    await expect(noPolicy.authorize(deleteBy(users.rick))).rejects.toMatchObject({ status: 503, message: 'the authorizer is unavailable; try again shortly', detail: 'no policy image is loaded' });
    const noDirectory = createLocalAuthorizer({ policy: () => rbac, directory: () => undefined });
    const error = await noDirectory.authorize(deleteBy(users.rick)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizerUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'authorizer_unavailable', detail: 'no directory is loaded' });
    expect(noPolicy.kind).toBe('local');
    expect(() => noPolicy.authorizeNow(deleteBy(users.rick))).toThrow(expect.objectContaining({ status: 503, detail: 'no policy image is loaded' }));
    expect(() => noDirectory.authorizeNow(deleteBy(users.rick))).toThrow(expect.objectContaining({ status: 503, detail: 'no directory is loaded' }));
  });

  it('decides synchronously (authorizeNow) as authorize does', async () => {
    const authorizer = createLocalAuthorizer({ policy: () => rbac, directory: () => seed });
    for (const user of [users.rick, users.morty]) {
      const awaited = await authorizer.authorize(deleteBy(user));
      expect(authorizer.authorizeNow(deleteBy(user))).toEqual({ ...awaited, cached: true });
    }
    expect(authorizer.authorizeNow(deleteBy(users.rick)).allowed).toBe(true);
    expect(authorizer.authorizeNow(deleteBy(users.morty)).allowed).toBe(false);
  });

  it('turns a Cedar failure into AuthorizerUnavailableError, never an allow', async () => {
    const released = compilePolicyImage(createPolicyImage('rbac', { ...rbacImage.files, 'extra.cedar': '' }));
    released.release();
    const authorizer = createLocalAuthorizer({ policy: () => released, directory: () => seed });
    await expect(authorizer.authorize(deleteBy(users.rick))).rejects.toMatchObject({ code: 'authorizer_unavailable', detail: expect.stringMatching(/policy rbac could not be evaluated: .*released/) });
  });
});

describe('a policy that fails while it is evaluated', () => {
  // Validation accepts the overflow; only evaluation finds it. The failing policy is a
  // forbid, so "allow" from the permit alone would be wrong: the authorizer must deny.
  const overflowingForbid = (rbacImage.files['rbac.cedar'] as string).concat(
    '\nforbid (principal, action, resource) when { 9223372036854775807 + 1 > 0 };\n',
  );
  let policy: CompiledPolicy;
  beforeAll(() => {
    policy = compilePolicyImage(createPolicyImage('rbac', { ...rbacImage.files, 'rbac.cedar': overflowingForbid }));
  });
  afterAll(() => policy.release());

  it('denies what a permit alone would allow, and Cedar did report the error', async () => {
    const answer = policy.isAuthorized({
      principal: { type: 'Outpost::User', id: users.rick },
      action: 'DELETE',
      resource: { type: 'Outpost::Resource', id: 'x' },
      entities: [],
    });
    expect(answer.errors.length).toBeGreaterThan(0);
    const authorizer = createLocalAuthorizer({ policy: () => policy, directory: () => seed });
    expect(await authorizer.authorize(deleteBy(users.rick))).toMatchObject({ allowed: false, reasons: [] });
    await authorizer.close();
  });
});
