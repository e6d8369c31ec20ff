import { readDemoTenantFile, type Config } from '../config';
import { defaultSigningKeyFile, servedPolicies } from '../control-plane';
import { adminApiRegistry } from './admin-api-registry';
import { describeSavedFolder, watchPolicyFolders, type PolicyFolderWatch } from './watch-policy-folders';

/**
 * `npm run dev` (`--watch-policies`): once the stack is up, pushes each served policy folder
 * (the sidecar's and every app's of `apps.json`) as it is saved, with the demo tenant's admin
 * key (OUTPOST_TENANT_ID and OUTPOST_ADMIN_API_KEY when set), and prints what became of it.
 * Returns undefined, having said why, when there is no tenant to push to.
 */
export function startPolicyWatch(config: Config, print: (line: string) => void = console.log): PolicyFolderWatch | undefined {
  let tenantId = config.tenantCredentials.tenantId;
  let adminApiKey = config.tenantCredentials.adminApiKey;
  if (tenantId === undefined || adminApiKey === undefined) {
    try {
      const demo = readDemoTenantFile(config.dataDir);
      tenantId = demo.tenant_id;
      adminApiKey = demo.admin_api_key;
    } catch (err) {
      print(`Not watching policies/: no tenant to push to (${(err as Error).message}).`);
      return undefined;
    }
  }
  const names = servedPolicies(config.apps.list);
  const signingKeyFile = defaultSigningKeyFile(config.dataDir, config.projectRoot);
  const watch = watchPolicyFolders({
    policiesDir: config.policiesDir,
    names,
    registry: adminApiRegistry({ relayUrl: config.controlPlane.url, tenantId, adminApiKey }),
    edgesPinKeys: config.edge.policySigningKeysFile !== undefined,
    ...(signingKeyFile === undefined ? {} : { signingKeyFile }),
    onSync: (result) => print(`[policies] ${describeSavedFolder(result)}`),
    onError: (folder, err) => print(`[policies] ${folder}: ${err.message}`),
  });
  print(`Watching ${names.map((n) => `policies/${n}`).join(', ')}: a saved change is pushed to the edges at once.`);
  return watch;
}
