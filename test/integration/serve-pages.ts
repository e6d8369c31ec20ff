// Child process for dotted-checkout.test.ts: serves the todo app's page and the console's page
// exactly as main.ts does (the files found from this checkout's project root), each on a
// port of its own, and prints one JSON line: the project root it found and both base URLs.
// It runs until it is killed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import { createTodoApp, openTodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { consolePageRouter, consolePublicDir } from '../../src/console';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, createApp, finishApp, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';

async function main(): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const logger = silentLogger();
  const { directory } = loadDirectorySeed(config.directorySeedFile);
  // The pages' files need neither credentials nor decisions: both stand-ins refuse everything.
  const authenticate: RequestHandler = (_req, res) => void res.status(401).end();
  const authorizer: Authorizer = { kind: 'local', authorize: () => Promise.resolve({ allowed: false, policyPath: 'todo' }), close: () => Promise.resolve() };
  const todo = createTodoApp({
    authenticate,
    authorizer,
    store: openTodoStore(join(mkdtempSync(join(tmpdir(), 'outpost-pages-')), 'todo.db')),
    directory: () => directory,
    logger,
    publicDir: join(config.projectRoot, 'src', 'apps', 'todo', 'public'),
    authUrl: 'http://127.0.0.1:9',
  });
  const consoleApp = createApp(logger);
  consoleApp.use(consolePageRouter({ publicDir: consolePublicDir(config.projectRoot), authUrl: 'http://127.0.0.1:9' }));
  const [todoServer, consoleServer] = await Promise.all([listen(todo, 0, '127.0.0.1'), listen(finishApp(consoleApp, logger, 'api'), 0, '127.0.0.1')]);
  process.stdout.write(`${JSON.stringify({ projectRoot: config.projectRoot, todo: baseUrl(todoServer), console: baseUrl(consoleServer) })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
