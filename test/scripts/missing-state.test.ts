import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { idpFiles, openIdp } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { refuseWithoutSigningKeys } from '../../scripts/lib/check-signing-keys';
import { DATA_DIR_DELETED, MissingStateError } from '../../scripts/lib/missing-state-error';
import { runScript } from '../../scripts/lib/run-script';
import { loadTenantCredentials } from '../../scripts/lib/tenant-credentials';
import { makeFixture, type Fixture } from '../control-plane/fixture';

/** A URL nothing listens on: a server's address right after it closed. */
async function closedUrl(server: Server): Promise<string> {
  const url = baseUrl(server);
  await close(server);
  return url;
}

describe('scripts when a data directory is missing', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-missing-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('demo-tenant.json', () => {
    let fx: Fixture;
    let server: Server;
    beforeEach(async () => {
      fx = await makeFixture();
      server = await listen(fx.app, 0, '127.0.0.1');
    });
    afterEach(async () => {
      if (server.listening) await close(server);
      fx.close();
    });

    const missing = (relayUrl: string) => {
      try {
        loadTenantCredentials(loadConfig({ OUTPOST_DATA_DIR: dataDir, RELAY_URL: relayUrl }), 'discovery');
      } catch (err) {
        return err as MissingStateError;
      }
      throw new Error('expected the credentials to be missing');
    };

    it('says "restart the stack" when the control plane still answers', async () => {
      const err = missing(baseUrl(server));
      expect(err).toBeInstanceOf(MissingStateError);
      expect(await err.explain()).toBe(DATA_DIR_DELETED);
      const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        await runScript('find-instance', () => {
          throw err;
        });
        expect(printed).toHaveBeenCalledWith(`find-instance: ${DATA_DIR_DELETED}`);
      } finally {
        printed.mockRestore();
        process.exitCode = undefined;
      }
    });

    it('says "start the control plane once" when nothing answers', async () => {
      const err = missing(await closedUrl(server));
      expect(await err.explain()).toMatch(/demo-tenant\.json does not exist \(start the control plane once with npm start\)/);
    });
  });

  describe('rotate-key', () => {
    let server: Server;
    let authUrl: string;
    beforeEach(async () => {
      const { app } = await openIdp(loadConfig({ OUTPOST_DATA_DIR: dataDir }), silentLogger());
      server = await listen(app, 0, '127.0.0.1');
      authUrl = baseUrl(server);
    });
    afterEach(async () => {
      if (server.listening) await close(server);
    });

    const configFor = (url: string) => loadConfig({ OUTPOST_DATA_DIR: dataDir, AUTH_URL: url });

    it('goes ahead when the keys file is there', async () => {
      expect(existsSync(idpFiles(dataDir).keysFile)).toBe(true);
      await expect(refuseWithoutSigningKeys(configFor(authUrl))).resolves.toBeUndefined();
    });

    it('refuses to replace every key when the IdP runs and its keys file is gone', async () => {
      rmSync(idpFiles(dataDir).keysFile);
      await expect(refuseWithoutSigningKeys(configFor(authUrl))).rejects.toThrow(
        `${idpFiles(dataDir).keysFile} is gone: ${DATA_DIR_DELETED}; rotating now would replace every signing key`,
      );
    });

    it('refuses before the first start, with nothing to rotate', async () => {
      rmSync(idpFiles(dataDir).keysFile);
      await expect(refuseWithoutSigningKeys(configFor(await closedUrl(server)))).rejects.toThrow(
        /^no signing keys at .*: start the IdP once \(npm start\) to create them; there is nothing to rotate yet$/,
      );
    });
  });
});
