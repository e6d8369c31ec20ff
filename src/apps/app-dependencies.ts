import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import { appConnection, findApp, packageVersion, type Config } from '../config';
import { loadDirectorySeed, type DirectoryData } from '@outpost/cedar-authorizer';
import { createEdgeAuthorizer, openLocalAuthorizer, type Authorizer } from '../authorizer';
import { requireAccessToken } from '@outpost/express-authz';
import type { Logger } from '../observability';
import type * as Embedded from '../embedded-edge';
import type * as DecisionRecords from '../decision-records';
import type * as SignedImages from '../signed-images';
import type { ImageSignatureCheck } from '../edge';

/**
 * The policy the sidecar edge's connection serves (the demo tenant's first connection): under
 * `AUTHORIZER=edge` only an app on this policy asks the sidecar.
 */
const SIDECAR_POLICY = 'rbac';

/**
 * The access-token middleware every sample app uses: tokens from our IdP, for the sample
 * API's audience, keys from the IdP's JWKS at the standard OIDC discovery location.
 */
export function accessTokenMiddleware(config: Config): RequestHandler {
  return requireAccessToken({
    issuer: config.idp.issuer,
    audience: config.idp.apiAudience,
    jwksUri: `${config.idp.url}/.well-known/jwks.json`,
    clientId: config.idp.clientId,
    clockTolerance: config.apps.clockTolerance,
    forwardErrors: true, // the apps' error middleware (src/http) answers and logs
  });
}

/** The authorizer an app opened, and the directory it reads users from. */
export interface AppAuthorizer {
  readonly authorizer: Authorizer;
  readonly directory: () => DirectoryData;
}

/**
 * The configured authorizer for the app `name` of `apps.json`. `embedded` (the default) runs
 * an edge inside the app on its own connection, data in `<dataDir>/embedded/<name>`,
 * verifying image signatures when `EDGE_POLICY_SIGNING_KEYS` pins keys; `edge` asks the
 * sidecar over HTTP — it serves the `rbac` image, so an app on another policy keeps its
 * embedded edge then; `local` evaluates `policies/<policyName>` (default the app's listed
 * policy) against the seed directory.
 */
export async function openAppAuthorizer(config: Config, name: string, logger: Logger, policyName?: string): Promise<AppAuthorizer> {
  const app = findApp(config, name);
  const seed = loadDirectorySeed(config.directorySeedFile).directory;
  const kind = config.apps.authorizer === 'edge' && app.policy !== SIDECAR_POLICY ? 'embedded' : config.apps.authorizer;
  if (kind === 'local') {
    const local = openLocalAuthorizer({ policiesDir: config.policiesDir, policyName: policyName ?? app.policy, directory: seed });
    return { authorizer: local, directory: () => seed };
  }
  if (kind === 'edge') return { authorizer: createEdgeAuthorizer({ url: config.edge.url }), directory: () => seed };
  // <env>_CONNECTION_ID/_SECRET, or the app's entry in the demo tenant file.
  const { connectionId, connectionSecret } = appConnection(config, app.name);
  // Required here only: an app on `local` or `edge` loads no edge runtime and no platform plug-in.
  const { openEmbeddedAuthorizer } = require('../embedded-edge') as typeof Embedded;
  const { decisionRecords } = require('../decision-records') as typeof DecisionRecords;
  const dataDir = join(config.dataDir, 'embedded', app.name);
  const authorizer = await openEmbeddedAuthorizer({
    relayUrl: config.controlPlane.url,
    connectionId,
    connectionSecret,
    dataDir,
    discoveryIntervalMs: config.edge.discoveryInterval * 1000,
    directorySyncIntervalMs: config.edge.directorySyncInterval * 1000,
    fullSyncIntervalMs: config.edge.fullSyncInterval * 1000,
    freshnessWaitMs: config.edge.freshnessWait * 1000,
    // Pinned image-signing keys apply to embedded edges exactly as to the sidecar.
    ...(config.edge.policySigningKeysFile === undefined ? {} : { imageSignatures: pinnedKeys(config.edge.policySigningKeysFile, dataDir) }),
    hostname: `${app.name}-app@${osHostname()}`,
    // The app's decisions become decision records in the console, named for the app.
    plugins: [decisionRecords({ app: app.name })],
    version: packageVersion(config.projectRoot),
    logger,
  });
  return { authorizer, directory: () => authorizer.directory() ?? seed };
}

/** The signed-images plug-in for pinned keys (`EDGE_POLICY_SIGNING_KEYS`), required only when keys are pinned. */
function pinnedKeys(keysFile: string, dataDir: string): ImageSignatureCheck {
  const { loadPinnedSigningKeys, pinnedImageSignatures } = require('../signed-images') as typeof SignedImages;
  return pinnedImageSignatures(loadPinnedSigningKeys(keysFile), dataDir);
}
