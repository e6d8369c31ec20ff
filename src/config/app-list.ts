import { join } from 'node:path';
import { z } from 'zod';
import { POLICY_NAME_PATTERN } from '@outpost/cedar-authorizer';
import { FileContentError, readJsonFile } from '../files';
import { APPS_GROUP, ENV_GROUPS, port, text, url } from './env-schema';

/** The apps list's file name at the project root: the one place an app is declared. */
export const APP_LIST_FILE = 'apps.json';

/**
 * An app's name: lowercase letters, digits and dashes, starting with a letter. It names the
 * folder `src/apps/<name>`, the launcher's component `<name>-app` and its log file, and the
 * embedded edge's state folder `<data dir>/embedded/<name>`; it is a valid policy name too.
 */
export const APP_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;

const ENV_PREFIX = /^[A-Z][A-Z0-9_]{0,30}$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]{0,62}$/;
// Path segments of letters, digits, `_` and `-`: no `.`, so never outside src/.
const MODULE_PATH = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;
const PROBE_PATH = /^\/[A-Za-z0-9._~/-]*$/;

const entrySchema = z.strictObject({
  name: z.string().regex(APP_NAME_PATTERN, 'must be lowercase letters, digits and dashes, starting with a letter (at most 31)'),
  /** Shown by the launcher and the banner (`billing app`). */
  label: z.string().min(1).max(40),
  /** Its default port; `<env>_PORT` moves it. */
  port: z.number().int().min(1).max(65535),
  /** Prefix of its variables: `<env>_PORT`, `<env>_URL`, `<env>_CONNECTION_ID`, `<env>_CONNECTION_SECRET`. */
  env: z.string().regex(ENV_PREFIX, 'must be uppercase letters, digits and _, starting with a letter'),
  /** The variable of its public URL when not `<env>_URL` (the RBAC app's `APP_URL`, the docs' `{app_url}`). */
  urlVar: z.string().regex(ENV_NAME).optional(),
  /** The folder under `policies/` its embedded edge's connection serves. */
  policy: z.string().regex(POLICY_NAME_PATTERN, 'must be a policy name (a-z, 0-9, _ and -)'),
  /** Its entry module under `src/` (`dist/src/`), without extension. */
  entry: z.string().regex(MODULE_PATH, 'must be a module path under src/ without extension (apps/<name>/main)'),
  /** Its connection's key in `demo-tenant.json`'s `app_connections`. */
  connection: z.string().regex(APP_NAME_PATTERN),
  /** A path that needs a token: a `Bearer realm="outpost"` 401 there tells the port check this app holds its port. */
  probe: z.string().regex(PROBE_PATH),
});

const listSchema = z.strictObject({ $comment: z.string().optional(), apps: z.array(entrySchema) });

/** One app as `apps.json` declares it. */
export type AppListEntry = z.infer<typeof entrySchema>;

/** The names of an app's variables. */
export interface AppVariables {
  readonly port: string;
  readonly url: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** `billing-api` → `BILLING_API`: the variable prefix `npm run new-app` gives an app. */
export function envPrefixOf(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

/** The variables that configure `app`. */
export function appVariables(app: Pick<AppListEntry, 'env' | 'urlVar'>): AppVariables {
  return {
    port: `${app.env}_PORT`,
    url: app.urlVar ?? `${app.env}_URL`,
    connectionId: `${app.env}_CONNECTION_ID`,
    connectionSecret: `${app.env}_CONNECTION_SECRET`,
  };
}

const APP_VARIABLE = /(_PORT|_URL|_CONNECTION_ID|_CONNECTION_SECRET)$/;

/** The stack's own variables: every documented one but the sample apps' ports, URLs and connections, which an app's may be. */
const STACK_VARIABLES = new Set(
  Object.entries(ENV_GROUPS).flatMap(([title, group]) => Object.keys(group).filter((name) => title !== APPS_GROUP || !APP_VARIABLE.test(name))),
);

/** What is wrong with a parsed list as a whole: two apps sharing a name, port, variable or connection. */
function clashes(apps: readonly AppListEntry[]): string[] {
  const problems: string[] = [];
  // What each app claims, by the app (its place in the list) that claimed it first.
  const seen = new Map<string, number>();
  const claim = (what: string, index: number) => {
    const holder = seen.get(what);
    if (holder === undefined) seen.set(what, index);
    else if (holder !== index) problems.push(`app "${apps[index]!.name}" and app "${apps[holder]!.name}" share the ${what}`);
  };
  for (const [index, app] of apps.entries()) {
    const owner = `app "${app.name}"`;
    claim(`name ${app.name}`, index);
    claim(`port ${app.port}`, index);
    claim(`connection ${app.connection}`, index);
    for (const variable of Object.values(appVariables(app))) {
      if (STACK_VARIABLES.has(variable)) problems.push(`${owner}: ${variable} is a variable of the stack itself; choose another env`);
      claim(`variable ${variable}`, index);
    }
  }
  return problems;
}

/** A list as checked: its apps, and what is wrong with it (none when it can be used). */
export interface CheckedAppList {
  readonly apps: readonly AppListEntry[];
  readonly problems: readonly string[];
}

/** Checks the content of an apps list (`file` names it in each problem): its shape, then what its apps share. */
export function checkAppList(raw: unknown, file: string): CheckedAppList {
  const parsed = listSchema.safeParse(raw);
  if (!parsed.success) return { apps: [], problems: parsed.error.issues.map((i) => `${file}: ${i.path.join('.')}: ${i.message}`) };
  return { apps: parsed.data.apps, problems: clashes(parsed.data.apps).map((p) => `${file}: ${p}`) };
}

/**
 * Reads `<projectRoot>/apps.json`. Never throws for the file's content: it answers the
 * problems found (each starting with the file's path), so `loadConfig` reports them with
 * the environment's, all at once.
 */
export function readAppList(projectRoot: string): CheckedAppList {
  const file = join(projectRoot, APP_LIST_FILE);
  let raw: unknown;
  try {
    raw = readJsonFile(file);
  } catch (err) {
    if (err instanceof FileContentError) return { apps: [], problems: [err.message] };
    throw err;
  }
  if (raw === undefined) return { apps: [], problems: [`${file}: does not exist (it lists the apps the stack runs)`] };
  return checkAppList(raw, file);
}

/**
 * The file's text for `apps`: one app a line, so adding an app adds a line (and a comma to
 * the line before). `apps.json` is kept in this form (a test checks it), which is what lets
 * `npm run new-app` rewrite it without touching the other lines.
 */
export function formatAppList(comment: string | undefined, apps: readonly AppListEntry[]): string {
  const line = (app: AppListEntry) => `{${Object.entries(app).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')}}`;
  const head = comment === undefined ? [] : [`  "$comment": ${JSON.stringify(comment)},`];
  const body = apps.length === 0 ? ['  "apps": []'] : ['  "apps": [', apps.map((app) => `    ${line(app)}`).join(',\n'), '  ]'];
  return `${['{', ...head, ...body, '}'].join('\n')}\n`;
}

/**
 * The environment schema's part for the listed apps: each app's port (its default from the
 * list), URL and connection credentials. A sample app's documented variable (`RBAC_PORT`)
 * is replaced by this one, so the list's port is the default that applies.
 */
export function appEnvShape(apps: readonly AppListEntry[]): Record<string, z.ZodType> {
  return Object.fromEntries(
    apps.flatMap((app) => {
      const vars = appVariables(app);
      return [
        [vars.port, port.default(app.port)],
        [vars.url, url.optional()],
        [vars.connectionId, text.optional()],
        [vars.connectionSecret, text.optional()],
      ];
    }),
  );
}

/** One app as the stack runs it: its list entry, with its variables' names and values. */
export interface AppSettings extends AppListEntry {
  readonly vars: AppVariables;
  /** `<env>_PORT`, else the list's port. */
  readonly port: number;
  /** Its URL as callers reach it: the URL variable, else `http://localhost:<port>`. */
  readonly url: string;
  /** Its embedded edge's connection; when absent, read from `<dataDir>/demo-tenant.json`. */
  readonly connectionId: string | undefined;
  readonly connectionSecret: string | undefined;
}

/** Resolves `app` against the parsed environment (which {@link appEnvShape} extended). */
export function toAppSettings(app: AppListEntry, parsedEnv: Readonly<Record<string, unknown>>): AppSettings {
  const vars = appVariables(app);
  const appPort = parsedEnv[vars.port] as number;
  return {
    ...app,
    vars,
    port: appPort,
    url: (parsedEnv[vars.url] as string | undefined) ?? `http://localhost:${appPort}`,
    connectionId: parsedEnv[vars.connectionId] as string | undefined,
    connectionSecret: parsedEnv[vars.connectionSecret] as string | undefined,
  };
}

/** The listed app called `name`; throws naming the list when there is none. */
export function findApp<A extends { readonly name: string }>(config: { readonly apps: { readonly list: readonly A[] } }, name: string): A {
  const app = config.apps.list.find((a) => a.name === name);
  if (app === undefined) throw new Error(`no app "${name}" in ${APP_LIST_FILE} (listed: ${config.apps.list.map((a) => a.name).join(', ') || 'none'})`);
  return app;
}
