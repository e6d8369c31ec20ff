// The todo sample app. With `npm start` running, open http://localhost:3002/ or:
//   TOKEN=$(npm run -s token -- morty@the-citadel.com)
//   curl -s -X POST localhost:3002/todos -H "Authorization: Bearer $TOKEN" \
//     -H 'content-type: application/json' -d '{"title":"Buy mega seeds"}'
//   curl -s localhost:3002/todos -H "Authorization: Bearer $TOKEN"
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findApp, loadConfig } from '../../config';
import { baseUrl, close, listen, shutdownOnSignal } from '../../http';
import { createLogger } from '../../observability';
import { accessTokenMiddleware, openAppAuthorizer } from '../app-dependencies';
import { createTodoApp } from './create-todo-app';
import { openTodoStore } from './todo-store';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('todo-app', config.logLevel);
  const { authorizer, directory } = await openAppAuthorizer(config, 'todo', logger);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const store = openTodoStore(join(config.dataDir, 'todo.db'));
  const app = createTodoApp({
    authenticate: accessTokenMiddleware(config),
    authorizer,
    store,
    directory,
    logger,
    publicDir: join(config.projectRoot, 'src', 'apps', 'todo', 'public'),
    authUrl: config.idp.url,
  });
  const server = await listen(app, findApp(config, 'todo').port, config.host);
  logger.info({ url: baseUrl(server), authorizer: authorizer.kind }, 'todo app listening');
  shutdownOnSignal(logger, async () => {
    await close(server);
    await authorizer.close();
    store.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
