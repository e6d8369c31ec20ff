import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { createHashingLimiter, createIdpApp, HASHING_IN_FLIGHT, HASHING_QUEUE, openIdp, TOKEN_PATH, type Idp } from '../../src/idp';
import type { IdpAppDeps } from '../../src/idp/create-idp-app';
import { silentLogger } from '../../src/observability';

/** A clock the test moves by hand. */
export interface FakeClock {
  (): number;
  advance(seconds: number): void;
}

export function fakeClock(start = Date.now()): FakeClock {
  let now = start;
  const clock = (() => now) as FakeClock;
  clock.advance = (seconds) => {
    now += seconds * 1000;
  };
  return clock;
}

/**
 * An IdP on port 0 with an injected clock; reuses `dataDir` when given (restart tests); with
 * `routers` the platform's plugged in (as its process does: `idpRouters()`, src/idp-server).
 */
export interface IdpFixture {
  readonly url: string;
  readonly config: Config;
  readonly idp: Idp;
  readonly clock: FakeClock;
  readonly dataDir: string;
  /** POSTs a raw body to the token endpoint. */
  post(body: string, contentType?: string): Promise<Response>;
  /** Stops the server; removes the data directory unless `keepData`. */
  close(keepData?: boolean): Promise<void>;
}

export async function startIdpFixture(
  env: Record<string, string> = {},
  options: { dataDir?: string; clock?: FakeClock; routers?: IdpAppDeps['routers'] } = {},
): Promise<IdpFixture> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'outpost-idp-test-'));
  const clock = options.clock ?? fakeClock();
  let handler: RequestListener = (_req, res) => res.end();
  const server: Server = await listen((req, res) => handler(req, res), 0, '127.0.0.1');
  const url = baseUrl(server);
  const config = loadConfig({ ...env, AUTH_URL: url, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const idp = await openIdp(config, silentLogger(), clock, options.routers ? { routers: options.routers } : {});
  handler = idp.app;
  return {
    url,
    config,
    idp,
    clock,
    dataDir,
    post(body, contentType = 'application/json') {
      return fetch(`${url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    },
    async close(keepData = false) {
      idp.hashing.close();
      await close(server);
      await idp.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A second server for a fixture's IdP, built with some of its parts replaced (limits, users, hashing). */
export interface IdpVariant {
  readonly url: string;
  readonly deps: IdpAppDeps;
  close(): Promise<void>;
}

/** Serves `fixture`'s IdP again on port 0 with `overrides`; the caller closes it before the fixture. */
export async function serveIdpVariant(fixture: IdpFixture, overrides: Partial<IdpAppDeps>): Promise<IdpVariant> {
  const deps: IdpAppDeps = {
    options: fixture.config.idp,
    users: fixture.idp.users,
    keys: fixture.idp.keys,
    hashing: createHashingLimiter({ maxInFlight: HASHING_IN_FLIGHT, maxQueued: HASHING_QUEUE }),
    adapter: fixture.idp.adapter,
    machineClient: fixture.idp.machineClient,
    logger: silentLogger(),
    clock: fixture.clock,
    ...overrides,
  };
  const server = await listen(createIdpApp(deps), 0, '127.0.0.1');
  return {
    url: baseUrl(server),
    deps,
    async close() {
      deps.hashing.close();
      await close(server);
    },
  };
}

/** The Citadel users of data/citadel-directory.json. */
export const CITADEL = [
  { email: 'rick@the-citadel.com', name: 'Rick Sanchez', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01' },
  { email: 'morty@the-citadel.com', name: 'Morty Smith', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02' },
  { email: 'summer@the-smiths.com', name: 'Summer Smith', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e03' },
  { email: 'beth@the-smiths.com', name: 'Beth Smith', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e04' },
  { email: 'jerry@the-smiths.com', name: 'Jerry Smith', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e05' },
] as const;
