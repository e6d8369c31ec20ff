// The demo identity provider's process: the IdP (src/idp) with the platform's routers plugged
// into its hook (`/openapi.json`, idp-openapi.ts here), as src/control-plane-server does for the control plane.
// Try it (with `npm start` running):
//   curl -s localhost:5556/api/v1/idp/token -H 'content-type: application/json' \
//        -d '{"username":"rick@the-citadel.com","password":"V@erySecre#t123!"}'
//   curl -s localhost:5556/.well-known/openid-configuration
import { loadConfig } from '../config';
import { baseUrl, close, listen, shutdownOnSignal } from '../http';
import { openIdp, systemClock } from '../idp';
import { createLogger } from '../observability';
import { idpRouters } from './idp-routers';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('idp', config.logLevel);
  const idp = await openIdp(config, logger, systemClock, { routers: idpRouters() });
  const server = await listen(idp.app, config.idp.port, config.host);
  logger.info({ url: baseUrl(server), issuer: config.idp.issuer }, 'IdP listening');
  // Queued password checks are abandoned first: otherwise their requests hold the server open.
  shutdownOnSignal(logger, async () => {
    idp.hashing.close();
    await close(server);
    await idp.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
