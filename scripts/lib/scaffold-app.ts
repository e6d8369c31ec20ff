import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { APP_LIST_FILE, APP_NAME_PATTERN, checkAppList, envPrefixOf, formatAppList, type AppListEntry } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { readJsonFile, writeFileAtomic } from '../../src/files';
import { appFiles, pascalCase } from './app-templates';
import { ScriptError } from './script-error';

/** The path an app scaffolded by `npm run new-app` is probed at: its `GET /items/:id` route needs a token. */
export const SCAFFOLD_PROBE = '/items/outpost-probe';

/** The demo directory the scaffolded policy's `tests/citadel-directory.json` is written over (as every shipped policy's). */
export const DEMO_DIRECTORY_FILE = 'data/citadel-directory.json';

/**
 * Names the stack already means something by, each with what: an app of that name would be
 * mistaken for it in the banner, the console, the logs or the checkout. (The component names
 * `idp`, `edge`, … are refused already: their variables, `IDP_PORT`, `EDGE_PORT`, are the stack's.)
 */
const RESERVED_NAMES: ReadonlyMap<string, string> = new Map([
  // What the launcher, the banner and the console call the stack's own parts.
  ...['stack', 'sidecar', 'console', 'relay', 'embedded', 'app'].map((n): [string, string] => [n, 'a part of the stack (the banner, the console and the logs name it)']),
  // Routes every component serves, and the folders of the data directory (.data/logs, .data/embedded, .data/cluster).
  ...['metrics', 'healthz', 'readyz', 'logs', 'cluster'].map((n): [string, string] => [n, "a route or a folder of the stack's own (/metrics, /healthz, /readyz, .data/logs, .data/cluster)"]),
  // The checkout's own folders, and the files beside src/apps/<name>/.
  ...['dist', 'node-modules', 'src', 'test', 'scripts', 'docs', 'data', 'policies', 'apps'].map((n): [string, string] => [n, 'a folder of the checkout (dist/, node_modules/, src/, …)']),
  ...['app-dependencies', 'app-health', 'app-openapi'].map((n): [string, string] => [n, 'a module of src/apps/ (src/apps/<name>.ts), which the folder src/apps/<name>/ would shadow']),
]);

/**
 * Why `name` cannot be an app's name (undefined when it can): it must match {@link APP_NAME_PATTERN}
 * without an empty part between dashes (`a--b`, `x-`: its variables `A__B_PORT`, `X__PORT` and its
 * factory name would be ambiguous), must not be a name JavaScript objects already answer to
 * (`constructor`: `app_connections.constructor` exists in every demo-tenant.json), nor one the stack means.
 */
export function appNameRefusal(name: string): string | undefined {
  if (!APP_NAME_PATTERN.test(name)) return `"${name}" is not an app name: use lowercase letters, digits and dashes, starting with a letter (at most 31), e.g. billing-api`;
  if (name.endsWith('-') || name.includes('--')) return `"${name}" is not an app name: a dash must stand between two letters or digits (no "--", no dash at the end), e.g. billing-api`;
  if (name in Object.prototype) return `"${name}" is not an app name: every JavaScript object already has a property of that name (the app lists and demo-tenant.json are read as objects); choose another name`;
  const reserved = RESERVED_NAMES.get(name);
  if (reserved !== undefined) return `"${name}" is not an app name: it is ${reserved}; choose another name`;
  return undefined;
}

/** What {@link scaffoldApp} is asked for. */
export interface ScaffoldOptions {
  /** The project root: `apps.json`, `src/apps/`, `policies/`, `test/apps/`. */
  readonly root: string;
  readonly name: string;
  /** Its port; default the next after the listed apps' highest that no component uses. */
  readonly port?: number;
  /** Ports the stack's other components listen on (IdP, control plane, edge): never given to an app. */
  readonly stackPorts: readonly number[];
}

/** What {@link scaffoldApp} did: the app's line in `apps.json` and the files it wrote. */
export interface ScaffoldResult {
  readonly entry: AppListEntry;
  readonly files: readonly string[];
}

/** The list as it is, refused when it has problems: new-app never adds to a list the stack could not read. */
function readList(root: string): { comment: string | undefined; apps: readonly AppListEntry[] } {
  const file = join(root, APP_LIST_FILE);
  const raw = readJsonFile(file);
  if (raw === undefined) throw new ScriptError(`${file} does not exist: is ${root} an Outpost checkout?`);
  const { apps, problems } = checkAppList(raw, file);
  if (problems.length > 0) throw new ScriptError(`fix ${APP_LIST_FILE} first:\n  ${problems.join('\n  ')}`);
  const comment = (raw as { $comment?: unknown }).$comment;
  return { comment: typeof comment === 'string' ? comment : undefined, apps };
}

/** The port asked for, checked; or the next after the listed apps' highest that nothing uses. */
function choosePort(apps: readonly AppListEntry[], stackPorts: readonly number[], asked: number | undefined): number {
  const taken = new Map<number, string>([
    ...stackPorts.map((p): [number, string] => [p, 'the IdP, the control plane or the edge']),
    ...apps.map((a): [number, string] => [a.port, `the ${a.name} app`]),
  ]);
  if (asked !== undefined) {
    const holder = taken.get(asked);
    if (holder !== undefined) throw new ScriptError(`port ${asked} is taken by ${holder}; choose another with --port`);
    return asked;
  }
  let port = Math.max(0, ...apps.map((a) => a.port)) + 1;
  while (taken.has(port)) port += 1;
  if (port > 65535) throw new ScriptError('no port left above the listed apps; choose one with --port');
  return port;
}

/**
 * Scaffolds the app `name`: its source folder, policy folder (with the demo directory's matrix
 * of cases every shipped policy carries) and test (`app-templates.ts`), and one line in
 * `apps.json`. Refuses before writing anything when the name breaks the rule or is reserved ({@link appNameRefusal}),
 * is listed or has a folder or file already (nothing is ever overwritten), or the new list
 * would not load (a variable of the stack's own, a port taken). A failure while writing
 * removes what it wrote; `apps.json` is written last, atomically.
 */
export function scaffoldApp(options: ScaffoldOptions): ScaffoldResult {
  const { root, name } = options;
  const refusal = appNameRefusal(name);
  if (refusal !== undefined) throw new ScriptError(refusal);
  const list = readList(root);
  const clash = list.apps.find((a) => a.name === name || a.connection === name || a.policy === name);
  if (clash) throw new ScriptError(`apps.json already lists the ${clash.name} app (its name, connection or policy is ${name}); choose another name`);
  const port = choosePort(list.apps, options.stackPorts, options.port);
  const entry: AppListEntry = {
    name,
    label: `${name} app`,
    port,
    env: envPrefixOf(name),
    policy: name,
    entry: `apps/${name}/main`,
    connection: name,
    probe: SCAFFOLD_PROBE,
  };
  const file = join(root, APP_LIST_FILE);
  const next = [...list.apps, entry];
  const { problems } = checkAppList({ apps: next }, file);
  if (problems.length > 0) throw new ScriptError(`the ${name} app cannot be listed:\n  ${problems.join('\n  ')}`);

  const demo = loadDirectorySeed(join(root, DEMO_DIRECTORY_FILE)).directory;
  const files = appFiles({ name, pascal: pascalCase(name), env: entry.env, port }, demo);
  // Folders too: a policy folder of that name would be pushed at the seed, whatever its content.
  const folders = [`src/apps/${name}`, `policies/${name}`].filter((path) => existsSync(join(root, path)));
  const existing = [...folders, ...Object.keys(files).filter((path) => existsSync(join(root, path)) && !folders.some((f) => path.startsWith(`${f}/`)))];
  if (existing.length > 0) throw new ScriptError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}: new-app never overwrites; choose another name or remove ${existing.length === 1 ? 'it' : 'them'}`);

  const written: string[] = [];
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content, { flag: 'wx' });
      written.push(path);
    }
    writeFileAtomic(file, formatAppList(list.comment, next), { mode: 0o644 });
  } catch (err) {
    for (const path of [`src/apps/${name}`, `policies/${name}`, ...written]) rmSync(join(root, path), { recursive: true, force: true });
    throw err;
  }
  return { entry, files: written };
}
