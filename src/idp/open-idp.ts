import { join } from 'node:path';
import type { Express } from 'express';
import type { Config } from '../config';
import { loadDirectorySeed } from '../directory';
import type { Logger } from '../observability';
import { systemClock, type Clock } from './clock';
import { createIdpApp } from './create-idp-app';
import { openKeyStore, type KeyStore } from './key-store';
import { openUserStore, type UserStore } from './user-store';

/** Where the IdP keeps its state: `<dataDir>/idp/keys.json` and `<dataDir>/idp/users.json`. */
export function idpFiles(dataDir: string): { keysFile: string; usersFile: string } {
  const dir = join(dataDir, 'idp');
  return { keysFile: join(dir, 'keys.json'), usersFile: join(dir, 'users.json') };
}

/** A ready IdP: the app to serve plus its stores (tests and scripts rotate keys through them). */
export interface Idp {
  readonly app: Express;
  readonly keys: KeyStore;
  readonly users: UserStore;
}

/** Opens (or, on first start, creates) the IdP's key file for `config`. */
export function openIdpKeyStore(config: Config, logger: Logger, clock: Clock = systemClock): Promise<KeyStore> {
  return openKeyStore({
    file: idpFiles(config.dataDir).keysFile,
    overlapSeconds: config.idp.keyRotationOverlap,
    clock,
    logger,
  });
}

/**
 * Loads or creates the IdP's state in the data directory (password hashes from the
 * directory seed, signing keys) and builds the app. Nothing listens yet.
 */
export async function openIdp(config: Config, logger: Logger, clock: Clock = systemClock): Promise<Idp> {
  const seed = loadDirectorySeed(config.directorySeedFile);
  const [users, keys] = await Promise.all([
    openUserStore(idpFiles(config.dataDir).usersFile, seed.directory.users, seed.demoPassword),
    openIdpKeyStore(config, logger, clock),
  ]);
  const app = createIdpApp({ options: config.idp, users, keys, logger, clock });
  return { app, keys, users };
}
