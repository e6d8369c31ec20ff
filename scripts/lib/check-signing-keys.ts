import { existsSync } from 'node:fs';
import type { Config } from '../../src/config';
import { idpFiles } from '../../src/idp';
import { DATA_DIR_DELETED, isComponentRunning } from './missing-state-error';
import { ScriptError } from './script-error';

/**
 * Refuses to rotate when there is no keys file: the key store would generate a fresh one,
 * and a running IdP would reload it — every published key replaced, every issued token
 * dead — while the command reports an ordinary rotation.
 */
export async function refuseWithoutSigningKeys(config: Config): Promise<void> {
  const { keysFile } = idpFiles(config.dataDir);
  if (existsSync(keysFile)) return;
  if (await isComponentRunning(config, 'idp')) {
    throw new ScriptError(`${keysFile} is gone: ${DATA_DIR_DELETED}; rotating now would replace every signing key`);
  }
  throw new ScriptError(`no signing keys at ${keysFile}: start the IdP once (npm start) to create them; there is nothing to rotate yet`);
}
