// An edge authorizer: connects out to the relay, keeps a policy image and a directory
// replica in <data dir>/edge, and answers decisions. With `npm start` running:
//   curl -s localhost:8383/api/v2/authz/is -H 'content-type: application/json' -d '{
//     "identity_context":{"type":"IDENTITY_TYPE_SUB","identity":"rick@the-citadel.com"},
//     "policy_context":{"path":"rbac.DELETE","decisions":["allowed"]},
//     "resource_context":{"type":"Resource","id":"mega-seed"}}'
import { loadConfig, packageVersion } from '../config';
import { shutdownOnSignal } from '../http';
import { createLogger } from '../observability';
import { startEdgeFromConfig } from './start-edge';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('edge', config.logLevel);
  const { stop } = await startEdgeFromConfig(config, logger, { version: packageVersion(config.projectRoot) });
  shutdownOnSignal(logger, stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
