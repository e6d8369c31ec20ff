import express, { type Express } from 'express';
import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { createErrorHandler, notFound } from '../../src/http';
import { requireAccessToken } from '@outpost/express-authz';
import { silentLogger } from '../../src/observability';
import { makeEdge, removeDir, tempDir } from '../edge/edge-kit';
import { startFakeControlPlane, type FakeControlPlane } from '../edge/fake-control-plane';

/** Where both verifiers get their tokens' keys from. */
/** A decision request for `rbac.GET` on `mega-seed` with the token as a JWT identity. */
export function jwtDecisionRequest(token: string) {
  return {
    identity_context: { type: 'IDENTITY_TYPE_JWT', identity: token },
    policy_context: { path: 'rbac.GET', decisions: ['allowed'] },
    resource_context: { type: 'Resource', id: 'mega-seed' },
  };
}

export interface TrustedIssuer {
  issuer: string;
  audience: string;
  jwksUri: string;
}

/** An app behind `requireAccessToken` and a ready edge, trusting the same issuer and clock. */
export interface VerifierPair {
  /** Status of `GET /whoami` at the app with this bearer token. */
  app(token: string): Promise<number>;
  /** Status of a JWT-identity decision at the edge. */
  edge(token: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts both verifiers; `now` (default `Date.now`) drives their key refresh and token times. */
export async function startVerifierPair(trusted: TrustedIssuer, now?: () => number): Promise<VerifierPair> {
  const app: Express = express();
  app.get('/whoami', requireAccessToken({ ...trusted, ...(now ? { now } : {}) }), (req, res) => {
    res.json({ sub: req.auth?.sub });
  });
  app.use(notFound('oauth'));
  app.use(createErrorHandler(silentLogger(), 'oauth'));
  const cp: FakeControlPlane = await startFakeControlPlane();
  const dir = tempDir();
  const { edge }: { edge: Edge } = makeEdge(cp.url, dir, { jwt: trusted, ...(now ? { now } : {}) });
  await edge.runCommand('discovery');
  await edge.runCommand('sync_edge_directory');
  return {
    async app(token) {
      return (await request(app).get('/whoami').set('Authorization', `Bearer ${token}`)).status;
    },
    async edge(token) {
      const res = await request(edge.app)
        .post('/api/v2/authz/is')
        .send(jwtDecisionRequest(token));
      return res.status;
    },
    async close() {
      await edge.close();
      await cp.close();
      removeDir(dir);
    },
  };
}
