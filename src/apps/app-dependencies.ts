import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import { packageVersion, readDemoTenantFile, type Config } from '../config';
import { loadDirectorySeed, type DirectoryData } from '../directory';
import { createEdgeAuthorizer, openEmbeddedAuthorizer, openLocalAuthorizer, type Authorizer } from '../authorizer';
import { loadPinnedSigningKeys } from '../edge';
import { requireAccessToken } from '../middleware';
import type { Logger } from '../observability';

/** The two sample apps. */
export type SampleApp = 'rbac' | 'todo';

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
  });
}

/**
 * An app's embedded-edge connection: `<APP>_CONNECTION_ID`/`_SECRET`, else the app's entry
 * in the demo tenant file the control plane writes.
 */
export function appConnection(config: Config, app: SampleApp): { connectionId: string; connectionSecret: string } {
  const { connectionId, connectionSecret } = config.apps.connections[app];
  if (connectionId && connectionSecret) return { connectionId, connectionSecret };
  const prefix = app.toUpperCase();
  const missing = `no connection for the ${app} app's embedded edge: set ${prefix}_CONNECTION_ID and ${prefix}_CONNECTION_SECRET, or start the control plane first`;
  let entry;
  try {
    entry = readDemoTenantFile(config.dataDir).app_connections?.[app];
  } catch (err) {
    throw new Error(`${missing} (${(err as Error).message})`);
  }
  if (!entry) throw new Error(`${missing} (the demo tenant file has no app connections; restart the control plane to add them)`);
  return { connectionId: entry.connection_id, connectionSecret: entry.connection_secret };
}

/** The authorizer an app opened, and the directory it reads users from. */
export interface AppAuthorizer {
  readonly authorizer: Authorizer;
  readonly directory: () => DirectoryData;
}

/**
 * The configured authorizer for one app. `embedded` (the default) runs an edge inside
 * the app on its own connection, data in `<dataDir>/embedded/<app>`, verifying image
 * signatures when `EDGE_POLICY_SIGNING_KEYS` pins keys; `edge` asks the
 * sidecar over HTTP — it serves the `rbac` image, so the todo app keeps its embedded
 * edge then; `local` evaluates `policies/<name>` against the seed directory.
 */
export async function openAppAuthorizer(config: Config, app: SampleApp, logger: Logger): Promise<AppAuthorizer> {
  const seed = loadDirectorySeed(config.directorySeedFile).directory;
  const kind = config.apps.authorizer === 'edge' && app === 'todo' ? 'embedded' : config.apps.authorizer;
  if (kind === 'local') {
    const policyName = app === 'rbac' ? config.apps.rbacPolicy : 'todo';
    return { authorizer: openLocalAuthorizer({ policiesDir: config.policiesDir, policyName, directory: seed }), directory: () => seed };
  }
  if (kind === 'edge') return { authorizer: createEdgeAuthorizer({ url: config.edge.url }), directory: () => seed };
  const authorizer = await openEmbeddedAuthorizer({
    relayUrl: config.controlPlane.url,
    ...appConnection(config, app),
    dataDir: join(config.dataDir, 'embedded', app),
    discoveryIntervalMs: config.edge.discoveryInterval * 1000,
    directorySyncIntervalMs: config.edge.directorySyncInterval * 1000,
    fullSyncIntervalMs: config.edge.fullSyncInterval * 1000,
    freshnessWaitMs: config.edge.freshnessWait * 1000,
    // Pinned image-signing keys apply to embedded edges exactly as to the sidecar.
    ...(config.edge.policySigningKeysFile === undefined ? {} : { policySigningKeys: loadPinnedSigningKeys(config.edge.policySigningKeysFile) }),
    hostname: `${app}-app@${osHostname()}`,
    version: packageVersion(config.projectRoot),
    logger,
  });
  return { authorizer, directory: () => authorizer.directory() ?? seed };
}
