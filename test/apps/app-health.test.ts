import type { Server } from 'node:http';
import express from 'express';
import { serveProbes } from '../../src/apps/app-health';
import { createEdgeAuthorizer, openLocalAuthorizer, type Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';

/** A sidecar edge stand-in whose `/readyz` answers `status.readyz`; every other path 404. */
async function startStubEdge(status: { readyz: number }): Promise<{ url: string; server: Server }> {
  const server = await listen(
    (req, res) => {
      res.statusCode = req.url === '/readyz' ? status.readyz : 404;
      res.end('{}');
    },
    0,
    '127.0.0.1',
  );
  return { url: baseUrl(server), server };
}

async function serveApp(authorizer: Authorizer): Promise<{ url: string; server: Server }> {
  const app = express();
  serveProbes(app, authorizer);
  const server = await listen(app, 0, '127.0.0.1');
  return { url: baseUrl(server), server };
}

async function readyz(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.json() };
}

describe('app probes', () => {
  const servers: Server[] = [];
  const authorizers: Authorizer[] = [];
  afterEach(async () => {
    await Promise.all(authorizers.splice(0).map((a) => a.close()));
    await Promise.all(servers.splice(0).filter((s) => s.listening).map((s) => close(s)));
  });

  it('with AUTHORIZER=edge, is ready exactly while the sidecar edge is: 503 naming the edge when it is down or not ready', async () => {
    const stub = { readyz: 200 };
    const edge = await startStubEdge(stub);
    servers.push(edge.server);
    const authorizer = createEdgeAuthorizer({ url: edge.url, timeoutMs: 1_000 });
    authorizers.push(authorizer);
    const app = await serveApp(authorizer);
    servers.push(app.server);

    expect(await readyz(app.url)).toEqual({ status: 200, body: { status: 'ready', authorizer: 'edge' } });
    stub.readyz = 503; // up, but without a policy or a directory: its decisions would be 503
    expect(await readyz(app.url)).toEqual({ status: 503, body: { status: 'not_ready', authorizer: 'edge' } });
    stub.readyz = 200;
    expect(await readyz(app.url)).toEqual({ status: 200, body: { status: 'ready', authorizer: 'edge' } });

    edge.server.closeAllConnections();
    await close(edge.server); // the sidecar is gone: connection refused
    expect(await readyz(app.url)).toEqual({ status: 503, body: { status: 'not_ready', authorizer: 'edge' } });
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200); // alive all the same
  });

  it('with AUTHORIZER=edge, is not ready while the edge does not answer within the deadline', async () => {
    const silent = await listen(() => undefined, 0, '127.0.0.1'); // accepts, never answers
    servers.push(silent);
    const authorizer = createEdgeAuthorizer({ url: baseUrl(silent), timeoutMs: 200 });
    authorizers.push(authorizer);
    const app = await serveApp(authorizer);
    servers.push(app.server);
    expect(await readyz(app.url)).toEqual({ status: 503, body: { status: 'not_ready', authorizer: 'edge' } });
    silent.closeAllConnections();
  });

  it('with AUTHORIZER=local, is always ready: it depends on nothing that runs', async () => {
    const config = loadConfig({});
    const authorizer = openLocalAuthorizer({
      policiesDir: config.policiesDir,
      policyName: 'rbac',
      directory: loadDirectorySeed(config.directorySeedFile).directory,
    });
    const app = await serveApp(authorizer);
    servers.push(app.server);
    expect(await readyz(app.url)).toEqual({ status: 200, body: { status: 'ready', authorizer: 'local' } });
  });
});
