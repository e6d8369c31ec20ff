import { existsSync } from 'node:fs';
import type { Config } from '../../src/config';
import { demoTenantPath, readDemoTenantFile } from '../../src/config';
import type { TenantKeyKind } from '../../src/control-plane';
import { MissingStateError } from './missing-state-error';
import { ScriptError } from './script-error';

/** What a script needs to call a tenant API of the control plane. */
export interface TenantCredentials {
  readonly relayUrl: string;
  readonly tenantId: string;
  readonly key: string;
  /** Where the credentials came from, for error messages ("environment" or the file path). */
  readonly source: string;
}

/** The environment variables that override `demo-tenant.json`, per key kind. */
export const CREDENTIAL_ENV = {
  tenantId: 'OUTPOST_TENANT_ID',
  discovery: 'OUTPOST_DISCOVERY_API_KEY',
  admin: 'OUTPOST_ADMIN_API_KEY',
} as const;

/**
 * A tenant's id and key: from `OUTPOST_TENANT_ID` + `OUTPOST_<KIND>_API_KEY` when both
 * are set, otherwise from `<dataDir>/demo-tenant.json` (written on the control plane's
 * first start). `relayUrl` is the configured `{relay_url}`.
 */
export function loadTenantCredentials(
  config: Config,
  kind: TenantKeyKind,
): TenantCredentials {
  const options = { kind, dataDir: config.dataDir, relayUrl: config.controlPlane.url };
  const keyVar = CREDENTIAL_ENV[kind];
  const tenantId = config.tenantCredentials.tenantId;
  const key = kind === 'admin' ? config.tenantCredentials.adminApiKey : config.tenantCredentials.discoveryApiKey;
  if (tenantId && key) return { relayUrl: options.relayUrl, tenantId, key, source: 'environment' };
  if (tenantId || key) {
    throw new ScriptError(`set both ${CREDENTIAL_ENV.tenantId} and ${keyVar}, or neither (to use demo-tenant.json)`);
  }
  const file = demoTenantPath(options.dataDir);
  if (!existsSync(file)) {
    throw new MissingStateError(
      `no credentials: ${file} does not exist (start the control plane once with npm start) and ${CREDENTIAL_ENV.tenantId}/${keyVar} are not set`,
      config,
      'control-plane',
    );
  }
  let demo;
  try {
    demo = readDemoTenantFile(options.dataDir);
  } catch {
    throw new ScriptError(`${file} is not a valid demo tenant file`);
  }
  return {
    relayUrl: options.relayUrl,
    tenantId: demo.tenant_id,
    key: options.kind === 'admin' ? demo.admin_api_key : demo.discovery_api_key,
    source: file,
  };
}
