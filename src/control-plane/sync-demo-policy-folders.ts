import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readDemoTenantFile, writePolicyFoldersReport, type DemoTenant, type PolicyFolderSync } from '../config';
import type { ControlPlaneStore } from './control-plane-store';
import type { DemoApp } from './demo-apps';
import { requirePushCheck, type ImagePushCheck } from './image-push-check';
import { DEMO_POLICY } from './seed-control-plane';
import { policyFolder, syncPolicyFolder, type PolicyRegistry } from './sync-policy-folder';

/** The `actor` of the audit entry of a push made from `policies/` at start-up (the control plane on its host, as the tenants CLI). */
export const POLICY_FOLDER_ACTOR = 'policy_folder';

/** What {@link syncDemoPolicyFolders} compares. */
export interface DemoPolicyFoldersOptions {
  readonly dataDir: string;
  /** The project's `policies/`. */
  readonly policiesDir: string;
  /** The apps whose edges serve a policy (the sidecar serves `rbac` as well). */
  readonly apps: readonly Pick<DemoApp, 'policy'>[];
  /** `EDGE_POLICY_SIGNING_KEYS` is set. */
  readonly edgesPinKeys: boolean;
  /** Asked before any push, as the admin API asks it (required: see `ImagePushCheck`). */
  readonly pushCheck: ImagePushCheck;
}

/**
 * The policy registry of one tenant, in the store: whether it takes signed pushes only is the
 * push check's answer, which also checks each push (an unsigned one it refuses is not stored);
 * a push is audited as the policy folder's, and tells push on change like any other.
 */
export function storePolicyRegistry(store: ControlPlaneStore, tenantId: string, pushCheck: ImagePushCheck): PolicyRegistry {
  return {
    async latest(name) {
      const found = (await store.images.latest(tenantId)).find((i) => i.name === name);
      return found && { digest: found.digest, signed: found.signed };
    },
    requiresSignature: () => pushCheck.requiresSignature(tenantId, store),
    async push(image) {
      await store.transaction(async (tx) => {
        const pushed = await tx.images.push(tenantId, image);
        // Asked where the image is stored, so a key registered a moment ago still refuses it
        // (the transaction then stores nothing). Cedar saw the folder already: nothing to ask first.
        await pushCheck.check({ tenantId, image, signature: undefined }, tx);
        if (pushed.quotaExceeded) throw new Error('every image slot of the tenant is tagged (quota_exceeded)');
        await tx.audit.record(tenantId, { actor: POLICY_FOLDER_ACTOR, actorKind: 'cli', action: 'policy.push', target: `${image.name}@${image.digest}`, outcome: 'ok' });
      });
    },
  };
}

/** The policies the demo tenant's edges serve: the sidecar's and each app's, once each. */
export function servedPolicies(apps: readonly Pick<DemoApp, 'policy'>[]): string[] {
  return [...new Set([DEMO_POLICY, ...apps.map((a) => a.policy)])];
}

/** The key file `npm run policy -- keygen` writes by default, as typed from the project root, when it exists. */
export function defaultSigningKeyFile(dataDir: string, projectRoot: string): string | undefined {
  const file = join(dataDir, 'policy-signing.key.json');
  if (!existsSync(file)) return undefined;
  return file.startsWith(`${projectRoot}/`) ? file.slice(projectRoot.length + 1) : file;
}

/**
 * Later starts: the policy folder is the source of truth on a developer's machine. For each
 * policy the demo tenant's edges serve, `policies/<name>` is compared with the tenant's
 * latest image and pushed when it differs ({@link syncPolicyFolder}: not unsigned where keys
 * are pinned or the push check wants a signature, not when it fails to compile or its tests fail). Writes what it did to
 * `<dataDir>/policy-folders.json` for the banner (every start, so the banner never shows an
 * earlier start's), and returns it; undefined (the file empty) without a demo tenant of this store.
 */
export async function syncDemoPolicyFolders(store: ControlPlaneStore, options: DemoPolicyFoldersOptions): Promise<PolicyFolderSync[] | undefined> {
  const pushCheck = requirePushCheck(options.pushCheck, 'syncDemoPolicyFolders');
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(options.dataDir);
  } catch {
    writePolicyFoldersReport(options.dataDir, []);
    return undefined;
  }
  if (!(await store.tenants.exists(demo.tenant_id))) {
    writePolicyFoldersReport(options.dataDir, []);
    return undefined;
  }
  const registry = storePolicyRegistry(store, demo.tenant_id, pushCheck);
  const projectRoot = join(options.policiesDir, '..');
  const signingKeyFile = defaultSigningKeyFile(options.dataDir, projectRoot);
  const results: PolicyFolderSync[] = [];
  for (const name of servedPolicies(options.apps)) {
    const folder = policyFolder(options.policiesDir, name);
    if (!existsSync(folder.dir)) continue;
    results.push(await syncPolicyFolder(registry, { ...folder, edgesPinKeys: options.edgesPinKeys, ...(signingKeyFile === undefined ? {} : { signingKeyFile }) }));
  }
  writePolicyFoldersReport(options.dataDir, results);
  return results;
}

