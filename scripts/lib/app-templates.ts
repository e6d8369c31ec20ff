/**
 * The files `npm run new-app` writes for an app: an Express app on the project's middleware
 * with an embedded edge (as the RBAC sample), its Cedar policy folder with tests that allow
 * and deny, and a test of the app against the real IdP. Each is a file one would be glad to
 * copy (docs/conventions.md §1): the placeholders are the app's names, nothing else.
 */

import type { DirectoryData } from '../../src/directory';
import { formatPolicyTestCase, inlineJson } from './format-policy-tests';

/** The names one app's files are written with. */
export interface AppNames {
  /** `billing-api`: folder, policy, connection, component `billing-api-app`. */
  readonly name: string;
  /** `BillingApi`: the factory `createBillingApiApp` and its deps type. */
  readonly pascal: string;
  /** `BILLING_API`: prefix of its variables. */
  readonly env: string;
  /** Its default port, for the examples in comments. */
  readonly port: number;
}

/** The demo directory (`data/citadel-directory.json`): the users and roles its matrix of cases names. */
export type DemoDirectory = Pick<DirectoryData, 'roles' | 'users'>;

/** `billing-api` → `BillingApi`. */
export function pascalCase(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The app's Express factory: two routes on `/items/:id`, each a Cedar action. */
function createApp({ name, pascal, env, port }: AppNames): string {
  return `import type { Express, Request, RequestHandler } from 'express';
import type { Authorizer } from '../../authorizer';
import { BadRequestError, createApp, finishApp } from '../../http';
import { requirePermission } from '@outpost/express-authz';
import type { Logger } from '../../observability';
import { serveProbes } from '../app-health';

/** The policy folder the routes are decided under: \`policies/${name}\`. */
export const ${env}_POLICY = '${name}';

const ITEM_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** What the ${name} app needs; \`main.ts\` gives it the configured ones, a test its own. */
export interface ${pascal}AppDeps {
  /** Access-token middleware: sets \`req.auth\` or rejects (401/400/503). */
  readonly authenticate: RequestHandler;
  readonly authorizer: Authorizer;
  readonly logger: Logger;
}

/**
 * The ${name} app: \`GET /items/:id\` (Cedar action \`read\`) and \`DELETE /items/:id\` (action
 * \`delete\`), each allowed only when \`policies/${name}\` permits the token's user. Who the user
 * is comes from the access token; what they may do from the policy and the directory.
 *
 *   curl -i http://localhost:${port}/items/42 -H "Authorization: Bearer $(npm run -s token -- beth@the-smiths.com)"
 */
export function create${pascal}App(deps: ${pascal}AppDeps): Express {
  const app = createApp(deps.logger);
  serveProbes(app, deps.authorizer);

  const checkId: RequestHandler = (req, _res, next) => {
    if (!ITEM_ID.test(String(req.params.id))) throw new BadRequestError('item id must be 1-128 letters, digits, dots, dashes or underscores');
    next();
  };
  const item = (req: Request) => ({ type: 'Item', id: String(req.params.id) });
  const may = (action: 'read' | 'delete') => requirePermission(deps.authorizer, { policy: ${env}_POLICY, action, resource: item }, { forwardErrors: true });

  app.get('/items/:id', deps.authenticate, checkId, may('read'), (req, res) => {
    res.json({ id: String(req.params.id), read_by: (req as { auth?: { sub: string } }).auth!.sub });
  });
  app.delete('/items/:id', deps.authenticate, checkId, may('delete'), (_req, res) => {
    res.status(204).end();
  });

  return finishApp(app, deps.logger, 'api');
}
`;
}

/** The app's entry: configuration from \`loadConfig\`, never \`process.env\`. */
function main({ name, pascal, port }: AppNames): string {
  return `// The ${name} app (apps.json; \`npm start\` runs it). With the stack running:
//   curl -i http://localhost:${port}/items/42 -H "Authorization: Bearer $(npm run -s token -- beth@the-smiths.com)"
import { findApp, loadConfig } from '../../config';
import { baseUrl, close, listen, shutdownOnSignal } from '../../http';
import { createLogger } from '../../observability';
import { accessTokenMiddleware, openAppAuthorizer } from '../app-dependencies';
import { create${pascal}App } from './create-${name}-app';

async function main(): Promise<void> {
  const config = loadConfig();
  // Its port, URL and connection come from apps.json and its variables.
  const settings = findApp(config, '${name}');
  const logger = createLogger('${name}-app', config.logLevel);
  const { authorizer } = await openAppAuthorizer(config, settings.name, logger);
  const app = create${pascal}App({ authenticate: accessTokenMiddleware(config), authorizer, logger });
  const server = await listen(app, settings.port, config.host);
  logger.info({ url: baseUrl(server), authorizer: authorizer.kind, policy: settings.policy }, '${name} app listening');
  shutdownOnSignal(logger, async () => {
    await close(server);
    await authorizer.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
`;
}

function index({ name, pascal, env }: AppNames): string {
  return `export { create${pascal}App, ${env}_POLICY } from './create-${name}-app';
`;
}

function manifest({ name }: AppNames): string {
  return `${JSON.stringify({ name, description: `The ${name} app: viewers (and the roles above them) may read an item; only admins may delete one. Roles come from the directory, never from the token.` }, null, 2)}\n`;
}

function schema({ name }: AppNames): string {
  return `// Entities and actions the ${name} app asks about. Role membership is entity hierarchy:
// a user is \`in\` their roles, a role is \`in\` the roles it includes.
namespace Outpost {
  entity Role in [Role];
  entity User in [Role] {
    email: String,
    name: String,
  };
  entity Item;

  action read, delete appliesTo {
    principal: User,
    resource: Item,
  };
}
`;
}

function policy({ name }: AppNames): string {
  return `// Who may do what to the ${name} app's items. Roles nest (admin in editor in viewer), so
// \`principal in Role::"viewer"\` also holds for editors and admins.

// Viewers (and everyone above them) may read an item.
permit (
  principal in Outpost::Role::"viewer",
  action == Outpost::Action::"read",
  resource is Outpost::Item
);

// Only admins may delete one.
permit (
  principal in Outpost::Role::"admin",
  action == Outpost::Action::"delete",
  resource is Outpost::Item
);
`;
}

/**
 * One test case as the sample policies' tests write it (format-policy-tests.ts). Without a
 * directory of its own, it is decided over the folder's `tests/directory.json`.
 */
function testCase(name: string, request: unknown, directory: { roles: unknown[]; users: unknown[] } | undefined, decision: 'allow' | 'deny'): string {
  return formatPolicyTestCase({ name, request, ...(directory === undefined ? {} : { directory: { roles: directory.roles, users: directory.users, resources: [] } }), decision });
}

/**
 * The folder's shared directory fixture (`tests/directory.json`), as the shipped policies write
 * it: the demo's roles and users, one a line. Every case without a directory of its own — the
 * demo matrix's — is decided over it.
 */
function sharedDirectory(demo: DemoDirectory): string {
  const list = (items: readonly unknown[]) => `[\n${items.map((item) => `    ${inlineJson(item)}`).join(',\n')}\n  ]`;
  return `{\n  "roles": ${list(demo.roles)},\n  "users": ${list(demo.users)},\n  "resources": []\n}\n`;
}

/**
 * The policy's own tests, run before an image is pushed or activated: both answers, every role.
 * Each case carries a small directory of its own, which wins over the folder's shared
 * `tests/directory.json` (the demo's, which the matrix's cases use).
 */
function policyTests(): string {
  const directory = {
    roles: [{ id: 'viewer', includes: [] }, { id: 'editor', includes: ['viewer'] }, { id: 'admin', includes: ['editor'] }],
    users: [
      { id: 'ada', email: 'ada@example.com', name: 'Ada', roles: ['admin'] },
      { id: 'eddie', email: 'eddie@example.com', name: 'Eddie', roles: ['editor'] },
      { id: 'vic', email: 'vic@example.com', name: 'Vic', roles: ['viewer'] },
      { id: 'nora', email: 'nora@example.com', name: 'Nora', roles: [] },
    ],
  };
  const cases: [string, string, string, 'allow' | 'deny'][] = [
    ['a viewer may read', 'vic', 'read', 'allow'],
    ['a viewer may not delete', 'vic', 'delete', 'deny'],
    ['an editor may not delete', 'eddie', 'delete', 'deny'],
    ['an admin may delete', 'ada', 'delete', 'allow'],
    ['a user without a role may not read', 'nora', 'read', 'deny'],
    ['a principal missing from the directory may not read', 'mallory', 'read', 'deny'],
  ];
  const blocks = cases.map(([caseName, principal, action, decision]) =>
    testCase(caseName, { principal, action, resource: { type: 'Item', id: '42' } }, directory, decision),
  );
  return `[\n${blocks.join(',\n')}\n]\n`;
}

/**
 * What the demo's users may do under the scaffolded policy, as every shipped policy pins it
 * (`tests/citadel-directory.json`, checked by test/policy/shipped-policy-tests.test.ts): every
 * user of the demo directory asks every action of the schema, over the demo's roles and users
 * (the folder's shared `tests/directory.json`, {@link sharedDirectory}: no case repeats it).
 * The expected answers follow the policy's rule from the roles alone (read: viewer or a role
 * that includes it; delete: admin or a role that includes it), so Cedar's answers are checked
 * against it, not copied from it. Change the policy and these cases say whom the change moves.
 */
function demoMatrix(demo: DemoDirectory): string {
  const includes = new Map(demo.roles.map((r) => [r.id, r.includes]));
  /** A user's roles with every role they include, transitively. */
  const closure = (roles: readonly string[]): Set<string> => {
    const held = new Set<string>();
    const visit = (role: string) => {
      if (held.has(role)) return;
      held.add(role);
      for (const inner of includes.get(role) ?? []) visit(inner);
    };
    roles.forEach(visit);
    return held;
  };
  const needs: Record<'read' | 'delete', string> = { read: 'viewer', delete: 'admin' };
  const blocks = demo.users.flatMap((user) =>
    (['read', 'delete'] as const).map((action) => {
      const allowed = closure(user.roles).has(needs[action]);
      const who = `${user.name} (${user.roles.join(', ') || 'no role'})`;
      return testCase(`${who} may ${allowed ? '' : 'not '}${action} an item`, { principal: user.id, action, resource: { type: 'Item', id: '42' } }, undefined, allowed ? 'allow' : 'deny');
    }),
  );
  return `[\n${blocks.join(',\n')}\n]\n`;
}

/** The app against the real IdP and \`policies/<name>\` evaluated in-process. */
function appTest({ name, pascal, env }: AppNames): string {
  return `import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { create${pascal}App, ${env}_POLICY } from '../../src/apps/${name}';
import { openLocalAuthorizer } from '../../src/authorizer';
import { loadDirectorySeed } from '../../src/directory';
import { silentLogger } from '../../src/observability';
import { startAppFixture, USERS, type AppFixture } from './app-fixture';

describe('the ${name} app with the real IdP and its policy', () => {
  let fixture: AppFixture;
  let url: string;
  const close: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    fixture = await startAppFixture();
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    const authorizer = openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: ${env}_POLICY, directory });
    close.push(() => authorizer.close());
    url = await fixture.serve(create${pascal}App({ authenticate: accessTokenMiddleware(fixture.config), authorizer, logger: silentLogger() }));
  });
  afterAll(async () => {
    for (const c of close) await c();
    await fixture.close();
  });

  const call = async (method: string, user: keyof typeof USERS) =>
    fetch(\`\${url}/items/42\`, { method, headers: { authorization: \`Bearer \${(await fixture.idp.token(USERS[user].email)).access_token}\` } });
  /** A response's JSON body as the test expects it: \`res.json()\` is \`unknown\` until a type says what it holds. */
  const body = async <T>(res: Response): Promise<T> => (await res.json()) as T;

  it('lets a viewer read an item', async () => {
    const res = await call('GET', 'beth');
    expect(res.status).toBe(200);
    const item = await body<{ id: string; read_by: string }>(res);
    expect(item).toEqual({ id: '42', read_by: USERS.beth.id });
  });

  it('refuses a viewer and an editor the delete, and lets an admin', async () => {
    for (const user of ['beth', 'morty'] as const) {
      const res = await call('DELETE', user);
      expect(res.status).toBe(403);
      expect(await body<{ code: string; message: string }>(res)).toEqual({ code: 'forbidden', message: 'Forbidden by policy ${name}.delete' });
    }
    expect((await call('DELETE', 'rick')).status).toBe(204);
  });

  it('refuses a call without a token', async () => {
    const res = await fetch(\`\${url}/items/42\`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="outpost"/);
  });
});
`;
}

/** Every file of a new app, by its path under the project root. */
export function appFiles(names: AppNames, demo: DemoDirectory): Record<string, string> {
  const { name } = names;
  return {
    [`src/apps/${name}/create-${name}-app.ts`]: createApp(names),
    [`src/apps/${name}/main.ts`]: main(names),
    [`src/apps/${name}/index.ts`]: index(names),
    [`policies/${name}/manifest.json`]: manifest(names),
    [`policies/${name}/schema.cedarschema`]: schema(names),
    [`policies/${name}/${name}.cedar`]: policy(names),
    [`policies/${name}/tests/${name}.json`]: policyTests(),
    [`policies/${name}/tests/citadel-directory.json`]: demoMatrix(demo),
    [`policies/${name}/tests/directory.json`]: sharedDirectory(demo),
    [`test/apps/${name}-app.test.ts`]: appTest(names),
  };
}
