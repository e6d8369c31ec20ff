import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { APP_LIST_FILE, APP_NAME_PATTERN, checkAppList, envPrefixOf, formatAppList, type AppListEntry } from '../../src/config';
import { readJsonFile, writeFileAtomic } from '../../src/files';
import { appFiles, pascalCase } from './app-templates';
import { ScriptError } from './script-error';

/** The path an app scaffolded by `npm run new-app` is probed at: its `GET /items/:id` route needs a token. */
export const SCAFFOLD_PROBE = '/items/outpost-probe';

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
 * Scaffolds the app `name`: its source folder, policy folder and test (`app-templates.ts`),
 * and one line in `apps.json`. Refuses before writing anything when the name breaks the rule,
 * is listed or has a folder or file already (nothing is ever overwritten), or the new list
 * would not load (a variable of the stack's own, a port taken). A failure while writing
 * removes what it wrote; `apps.json` is written last, atomically.
 */
export function scaffoldApp(options: ScaffoldOptions): ScaffoldResult {
  const { root, name } = options;
  if (!APP_NAME_PATTERN.test(name)) {
    throw new ScriptError(`"${name}" is not an app name: use lowercase letters, digits and dashes, starting with a letter (at most 31), e.g. billing-api`);
  }
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

  const files = appFiles({ name, pascal: pascalCase(name), env: entry.env, port });
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
