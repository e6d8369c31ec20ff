import type { Server } from 'node:http';
import type { Express } from 'express';
import { loadConfig, type Config } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { startTestIdp, type TestIdp } from '../helpers/idp';

/** A real IdP plus the config an app derives from it, and a way to serve the app on port 0. */
export interface AppFixture {
  readonly idp: TestIdp;
  readonly config: Config;
  serve(app: Express): Promise<string>;
  close(): Promise<void>;
}

export async function startAppFixture(env: Record<string, string> = {}): Promise<AppFixture> {
  const idp = await startTestIdp({ LOGIN_MAX_FAILURES: '1000' });
  const config = loadConfig({ ...env, AUTH_URL: idp.url, LOG_LEVEL: 'silent' });
  const servers: Server[] = [];
  return {
    idp,
    config,
    async serve(app) {
      const server = await listen(app, 0, '127.0.0.1');
      servers.push(server);
      return baseUrl(server);
    },
    async close() {
      await Promise.all(servers.map((s) => close(s)));
      await idp.close();
    },
  };
}

/** The Citadel users with what the seed directory says about them. */
export const USERS = {
  rick: { email: 'rick@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01' },
  morty: { email: 'morty@the-citadel.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02' },
  summer: { email: 'summer@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e03' },
  beth: { email: 'beth@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e04' },
  jerry: { email: 'jerry@the-smiths.com', id: 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e05' },
} as const;
