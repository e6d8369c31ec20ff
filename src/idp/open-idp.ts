import { join } from 'node:path';
import type { Express } from 'express';
import type { Adapter } from 'oidc-provider';
import type { Config } from '../config';
import { loadDirectorySeed } from '../directory';
import type { Logger } from '../observability';
import { systemClock, type Clock } from './clock';
import { createIdpApp, type IdpAppDeps } from './create-idp-app';
import { openKeyStore, type KeyStore } from './key-store';
import { createHashingLimiter, type HashingLimiter } from './limit-hashing';
import { openMachineClient, type MachineClient } from './machine-client';
import { openOidcStorage } from './oidc-storage';
import { openUserStore, type UserStore } from './user-store';

/** Where the IdP keeps its state, all under `<dataDir>/idp/`. */
export function idpFiles(dataDir: string): { keysFile: string; usersFile: string; machineClientFile: string; storageFile: string } {
  const dir = join(dataDir, 'idp');
  return {
    keysFile: join(dir, 'keys.json'),
    usersFile: join(dir, 'users.json'),
    machineClientFile: join(dir, 'machine-client.json'),
    /** The provider's storage, unless DATABASE_URL names PostgreSQL. */
    storageFile: join(dir, 'oidc.sqlite'),
  };
}

/**
 * Password checks at once: libuv's default thread pool, where scrypt runs. More would
 * only queue inside libuv, out of reach of shedding and shutdown.
 */
export const HASHING_IN_FLIGHT = 4;
/** Password checks allowed to wait: about four scrypt rounds (well under a second) of delay. */
export const HASHING_QUEUE = 16;

/** A ready IdP: the app to serve plus its stores (tests and scripts rotate keys through them). */
export interface Idp {
  readonly app: Express;
  readonly keys: KeyStore;
  readonly users: UserStore;
  /** The password-check bound; {@link Idp.close} closes it. */
  readonly hashing: HashingLimiter;
  readonly machineClient: MachineClient;
  /** The provider's storage; another app on the same IdP (a test's variant) may share it. */
  readonly adapter: (model: string) => Adapter;
  /** Abandons queued password checks (they get 503), so closing the server is not held up, then closes the storage. */
  close(): Promise<void>;
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
 * Loads or creates the IdP's state (password hashes from the directory seed, signing keys,
 * the machine client, the provider's storage: its own SQLite file, or PostgreSQL when
 * `DATABASE_URL` is set) and builds the app, with the platform's `routers` plugged in (the
 * IdP's process, src/idp-server, hands them over). Nothing listens yet.
 */
export async function openIdp(config: Config, logger: Logger, clock: Clock = systemClock, plugins: Pick<IdpAppDeps, 'routers'> = {}): Promise<Idp> {
  const files = idpFiles(config.dataDir);
  const seed = loadDirectorySeed(config.directorySeedFile);
  const [users, keys, storage] = await Promise.all([
    openUserStore(files.usersFile, seed.directory.users, seed.demoPassword),
    openIdpKeyStore(config, logger, clock),
    openOidcStorage(
      config.controlPlane.databaseUrl === undefined
        ? { sqliteFile: files.storageFile }
        : { databaseUrl: config.controlPlane.databaseUrl, poolSize: config.controlPlane.databasePoolSize },
    ),
  ]);
  const machineClient = openMachineClient(files.machineClientFile);
  const hashing = createHashingLimiter({ maxInFlight: HASHING_IN_FLIGHT, maxQueued: HASHING_QUEUE });
  const app = createIdpApp({ options: config.idp, users, keys, hashing, adapter: storage.adapter, machineClient, logger, clock, ...plugins });
  return {
    app,
    keys,
    users,
    hashing,
    machineClient,
    adapter: storage.adapter,
    async close() {
      hashing.close();
      await storage.close();
    },
  };
}
