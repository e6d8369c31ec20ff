// The RBAC sample app ({app_url}). With `npm start` running:
//   curl -i -X DELETE http://localhost:3001/resource/mega-seed \
//     -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)"
import { findApp, loadConfig } from '../../config';
import { baseUrl, close, listen, shutdownOnSignal } from '../../http';
import { createLogger } from '../../observability';
import { accessTokenMiddleware, openAppAuthorizer } from '../app-dependencies';
import { createRbacApp } from './create-rbac-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('rbac-app', config.logLevel);
  // RBAC_POLICY chooses what this app evaluates (rbac, rebac); `local` evaluates that folder too.
  const { authorizer } = await openAppAuthorizer(config, 'rbac', logger, config.apps.rbacPolicy);
  const app = createRbacApp({
    authenticate: accessTokenMiddleware(config),
    authorizer,
    policyName: config.apps.rbacPolicy,
    logger,
  });
  const server = await listen(app, findApp(config, 'rbac').port, config.host);
  logger.info({ url: baseUrl(server), authorizer: authorizer.kind, policy: config.apps.rbacPolicy }, 'RBAC app listening');
  shutdownOnSignal(logger, async () => {
    await close(server);
    await authorizer.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
