// The control plane's process ({relay_url}): tenants and keys, policy registry, central directory,
// and the relay that edges connect to, with the platform plugged in (decision records, signed images, the console, cluster mode). With `npm start` running:
//   T=$(jq -r .tenant_id .data/demo-tenant.json); K=$(jq -r .discovery_api_key .data/demo-tenant.json)
//   curl -s localhost:8585/api/v2/management/control_plane/instance_registrations \
//     -H 'content-type: application/json' -H "service-tenant-id: $T" -H "Authorization: basic $K"
import { consolePublicDir } from '../console';
import { demoTenantPath, describePolicyFolderSync, loadConfig } from '../config';
import { loadDirectorySeed } from '../directory';
import { baseUrl, close, listen, shutdownOnSignal } from '../http';
import { createLogger } from '../observability';
import { useBaselineWasm } from '../policy';
import { signedImagePushCheck } from '../signing-keys';
import { SERVER_BUSY_TIMEOUT_MS, controlPlaneLocation, createControlPlaneApp, describeControlPlaneLocation, startPushOnChange, openControlPlaneStore, seedControlPlane, ensureDemoAppConnections, ensureDemoAccounts, ensureDemoConnectionLabels, describeForeignDemoTenant, syncDemoPolicyFolders } from '../control-plane';
import { controlPlaneExtensions } from './control-plane-extensions';
import { startControlPlaneRelay } from './start-control-plane-relay';

async function main(): Promise<void> {
  // Before the seed's first Cedar call: -76 MB RSS and -0.8 s at start (docs/architecture.md, "Memory of an idle relay").
  useBaselineWasm();
  const config = loadConfig();
  const logger = createLogger('control-plane', config.logLevel);
  // DATABASE_URL → PostgreSQL (several nodes share it); unset → the SQLite file in the data directory.
  const location = controlPlaneLocation(config);
  // The URL is redacted: the log never shows the password.
  const database = describeControlPlaneLocation(location);
  logger.info(database, 'opening the control-plane database');
  const store = await openControlPlaneStore(location, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
  // Signed images: every path that stores a policy image asks it first (a tenant with signing keys takes signed pushes only).
  const pushCheck = signedImagePushCheck();
  const directorySeed = loadDirectorySeed(config.directorySeedFile).directory;
  const demo = await seedControlPlane(store, {
    policiesDir: config.policiesDir,
    directorySeed,
    dataDir: config.dataDir,
    urls: { auth_url: config.idp.url, relay_url: config.controlPlane.url, app_url: config.apps.rbacUrl },
    database,
    apps: config.apps.list,
  });
  if (demo) {
    // Only identifiers go to the log; the keys exist in plain text only in the 0600 file.
    logger.warn(
      { tenant_id: demo.tenant_id, connection_id: demo.connection_id, file: demoTenantPath(config.dataDir) },
      'created the DEMO tenant; its keys are in the file (demo only)',
    );
    if (process.stdout.isTTY) console.log(`DEMO tenant credentials (demo only):\n${JSON.stringify(demo, null, 2)}`);
  } else if (await ensureDemoAppConnections(store, config.dataDir, { apps: config.apps.list, policiesDir: config.policiesDir, pushCheck })) {
    // An app listed in apps.json since the first start: its connection, and its policy's image if the tenant had none.
    logger.warn({ file: demoTenantPath(config.dataDir) }, "added the embedded-edge connections of apps.json's new apps to the DEMO tenant");
  }
  if (!demo && (await ensureDemoAccounts(store, config.dataDir, directorySeed))) {
    logger.warn('added the DEMO organization members and the demo users\' personal accounts');
  }
  if (!demo && (await ensureDemoConnectionLabels(store, config.dataDir, config.apps.list))) {
    logger.info('labelled the DEMO connections with what they serve (sidecar, sample apps)');
  }
  // A demo tenant file of another database: served anyway (it holds other tenants), but said at once.
  const foreign = await describeForeignDemoTenant(store, config.dataDir, database);
  if (foreign !== undefined) logger.warn({ file: demoTenantPath(config.dataDir) }, foreign);
  // policies/ is the source of truth on a developer's machine: a folder edited since the last
  // start is pushed before any edge connects (the banner says so, from policy-folders.json).
  // Another database's demo tenant is not in this store: nothing is compared then.
  const synced = await syncDemoPolicyFolders(store, {
    dataDir: config.dataDir,
    policiesDir: config.policiesDir,
    apps: config.apps.list,
    edgesPinKeys: config.edge.policySigningKeysFile !== undefined,
    pushCheck,
  });
  for (const sync of synced ?? []) {
    const line = describePolicyFolderSync(sync);
    if (line !== undefined) logger[sync.kind === 'pushed' ? 'info' : 'warn']({ policy: sync.name, outcome: sync.kind }, line);
  }

  const relay = await startControlPlaneRelay({
    store,
    logger,
    execTimeoutMs: config.controlPlane.execTimeout * 1000,
    heartbeatMs: config.controlPlane.heartbeat * 1000,
    // METRICS_TOKEN: /metrics names tenants only to its bearer (docs/guide/04-relay-and-console.md, Drift).
    metricsToken: config.controlPlane.metricsToken,
    // REDIS_URL: one node of a cluster (docs/guide/06-more-than-one-node.md).
    ...(config.controlPlane.redisUrl === undefined
      ? {}
      : { cluster: { redisUrl: config.controlPlane.redisUrl, ...(config.controlPlane.nodeId === undefined ? {} : { nodeId: config.controlPlane.nodeId }) } }),
  });
  // A tenant that turned push on change on (the demo tenant does) has each directory change and
  // policy push broadcast to its edges by itself (docs/reference/api.md, "Push on change").
  const push = startPushOnChange({ store, broadcast: relay.broadcast, logger });
  // Decision records' admin API, the signing keys' and the console, plugged into the control plane's app.
  const extensions = controlPlaneExtensions(store, {
    relay,
    auth: { issuer: config.idp.issuer, jwksUri: `${config.idp.url}/.well-known/jwks.json` },
    page: { publicDir: consolePublicDir(config.projectRoot), authUrl: config.idp.url },
    demoTenantFile: { dataDir: config.dataDir, database },
  });
  const app = createControlPlaneApp({
    store,
    logger,
    pushCheck,
    routers: [relay.managementRouter],
    extensions,
    sampleDecisions: relay.sampleDecisions,
    // RELAY_BARE_EXEC=on: the platform's opt-in bare exec (docs/reference/configuration.md, "Bare exec").
    ...(config.controlPlane.bareExec ? { bareExec: relay } : {}),
  });
  const server = await listen(app, config.controlPlane.port, config.host);
  relay.attach(server);
  logger.info({ url: baseUrl(server) }, 'control plane and relay listening');
  shutdownOnSignal(logger, async () => {
    // Nothing new is pushed from here; a running push ends as the relay closes its sockets.
    const pushes = push.close();
    await relay.close();
    await pushes;
    await close(server);
    await store.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
