// Bench child: a real edge authorizer (createEdge) connected to the bench control plane,
// serving its decision API, plus what the sidecar's server choice is measured against:
// the same decision routes behind Express (the app's stack: helmet, request id, request
// log, express.json), and bare JSON endpoints on node:http and on Express.
import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createDecisionRoutes, createEdge, type Edge } from '../../../src/sidecar';
import { baseUrl, close, createApp, finishApp, listen } from '../../../src/http';
import type { Logger } from '../../../src/observability';
import { createLogger } from '../../../src/observability';
import { serveParent } from './child-endpoint';

/** Where the edge should connect, with which connection credentials. */
export interface EdgeStartArgs {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
}

export interface EdgeInfo {
  readonly edgeUrl: string;
  readonly instanceId: string;
  /** The same decision routes served by Express (for the server choice). */
  readonly expressEdgeUrl: string;
  /** Bare JSON endpoints answering the `is` shape: node:http, then Express. */
  readonly bareNodeUrl: string;
  readonly bareUrl: string;
  /** node:http as `bareNodeUrl`, plus `calibrationWorkUs` µs of busy work per request (`calibrationNode`). */
  readonly calibrationUrl: string;
  readonly calibrationWorkUs: number;
}

const HOUR = 3_600_000;
const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-edge-'));
let running: { edge: Edge; servers: Server[] } | undefined;

const ANSWER = JSON.stringify({ decisions: [{ decision: 'allowed', is: true }] });
const AUTHZEN_ANSWER = JSON.stringify({ decision: true });

/** Busy work a calibration server does per request, in µs (of wall time: a busy loop on one core). */
const CALIBRATION_WORK_US = 10;

/**
 * node:http reading the JSON body and answering the same JSON shape (AuthZEN's on its paths,
 * else the `is` shape), after `workUs` µs of busy work once the body is parsed.
 */
function jsonNode(workUs: number): RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (workUs > 0) {
        const until = process.hrtime.bigint() + BigInt(workUs * 1000);
        while (process.hrtime.bigint() < until);
      }
      const answer = req.url?.startsWith('/access/v1/') ? AUTHZEN_ANSWER : ANSWER;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  };
}

/** The floor: the sidecar's bodies read, parsed and answered, nothing decided. */
const bareNode = jsonNode(0);

/**
 * The floor plus {@link CALIBRATION_WORK_US} µs of busy work per request: how much server CPU
 * per request, measured as the bench measures it, that much work of a handler costs on this
 * machine (more than itself when the load generator sleeps between answers).
 */
const calibrationNode = jsonNode(CALIBRATION_WORK_US);

/** The decision routes of `edge` behind Express with the stack every Outpost app has. */
function expressEdge(edge: Edge, logger: Logger): express.Express {
  const app = createApp(logger);
  const verifyJwt = async () => {
    throw new Error('JWT identities are not part of the benchmark');
  };
  for (const route of createDecisionRoutes({ runtime: edge, verifyJwt, logger })) {
    app.post(route.path, express.json({ limit: route.limitBytes }), async (req, res) => {
      const reply = await route.handle({ body: req.body, header: (name) => req.get(name), id: req.id });
      res.set(reply.headers).json(reply.body);
    });
  }
  return finishApp(app, logger, 'api');
}

/** The baseline: Express parsing the same JSON body and answering the same JSON shape. */
function bareJsonApp(): express.Express {
  const app = express();
  app.post('/api/v2/authz/is', express.json({ limit: '16kb' }), (req, res) => {
    const decisions = (req.body as { policy_context?: { decisions?: unknown[] } }).policy_context?.decisions ?? [];
    res.json({ decisions: decisions.map(() => ({ decision: 'allowed', is: true })) });
  });
  return app;
}

async function start(args: EdgeStartArgs): Promise<EdgeInfo> {
  const edge = createEdge({
    relayUrl: args.relayUrl,
    connectionId: args.connectionId,
    connectionSecret: args.connectionSecret,
    dataDir,
    // Timers out of the way: only the benchmark's commands sync.
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: 24 * HOUR,
    // JWT identities are not used by the benchmark; jose fetches this JWKS only on demand.
    jwt: { issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json', audience: 'urn:outpost:sample-api' },
    logger: createLogger('edge', 'info'),
    hostname: 'bench-edge',
    version: 'bench',
  });
  await edge.start();
  const outcomes = [await edge.runCommand('discovery'), await edge.runCommand('sync_edge_directory')];
  if (!outcomes.every((o) => o.ok)) throw new Error('the edge could not load its policy and directory');
  const logger = createLogger('edge', 'info');
  const listeners = [edge.app, expressEdge(edge, logger), bareNode, bareJsonApp(), calibrationNode];
  const servers: Server[] = [];
  for (const listener of listeners) servers.push(await listen(listener, 0, '127.0.0.1'));
  running = { edge, servers };
  const [edgeUrl, expressEdgeUrl, bareNodeUrl, bareUrl, calibrationUrl] = servers.map((s) => baseUrl(s)) as [string, string, string, string, string];
  return { edgeUrl, expressEdgeUrl, bareNodeUrl, bareUrl, calibrationUrl, calibrationWorkUs: CALIBRATION_WORK_US, instanceId: edge.instanceId };
}

serveParent({ start }, async () => {
  if (running) {
    for (const server of running.servers) await close(server);
    await running.edge.close();
  }
  rmSync(dataDir, { recursive: true, force: true });
});
