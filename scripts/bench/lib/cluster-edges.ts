// Bench child: lightweight fake edges for the cluster bench. Each holds one WebSocket to the
// relay URL (the round-robin front), registers, confirms every command at once and, like a
// real edge, reconnects with the default backoff when its socket closes. It records when
// each edge lost its socket and when it was registered again, for the failover figure.
import WebSocket from 'ws';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../src/edge';
import { RELAY_PATH, type EdgeMessage, type RelayMessage } from '../../../src/relay-protocol';
import { serveParent } from './child-endpoint';

export interface ClusterEdgesArgs {
  readonly relayUrl: string;
  /** Connection credentials, used in turn: each allows a few sockets only. */
  readonly credentials: readonly { readonly connectionId: string; readonly connectionSecret: string }[];
  readonly edgesPerCredential: number;
  readonly count: number;
  readonly prefix: string;
}

export interface ClusterEdgesInfo {
  readonly instanceIds: string[];
  readonly ms: number;
}

/** Per edge that lost its socket after `since`: ms from `since` to registered again (absent: not yet). */
export interface FailoverReport {
  readonly lost: number;
  readonly back: number[];
}

const BATCH = 100;
const REGISTER_TIMEOUT_MS = 20_000;
const STATUS = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };

interface FakeEdge {
  readonly instanceId: string;
  readonly url: string;
  readonly authorization: string;
  ws?: WebSocket;
  attempt: number;
  lostAt: number;
  backAt: number;
}

const edges: FakeEdge[] = [];
let stopping = false;
let commandsAnswered = 0;

/** Opens the edge's socket and resolves once the relay confirmed its registration. */
function connect(edge: FakeEdge): Promise<void> {
  const ws = new WebSocket(edge.url, { headers: { authorization: edge.authorization }, perMessageDeflate: false });
  edge.ws = ws;
  const send = (message: EdgeMessage) => ws.send(JSON.stringify(message));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${edge.instanceId} did not register in time`)), REGISTER_TIMEOUT_MS);
    ws.once('open', () => send({ type: 'register', instance_id: edge.instanceId, hostname: 'bench-cluster-edge', version: 'bench', status: STATUS }));
    ws.on('error', () => undefined); // 'close' follows and schedules the reconnect
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as RelayMessage;
      if (message.type === 'registered') {
        clearTimeout(timer);
        edge.attempt = 0;
        if (edge.lostAt > 0 && edge.backAt === 0) edge.backAt = Date.now();
        resolve();
      } else if (message.type === 'command') {
        commandsAnswered += 1;
        send({ type: 'command_result', request_id: message.request_id, ok: true, status: STATUS });
      }
    });
    ws.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`${edge.instanceId}: socket closed before registering`));
      if (stopping || edge.ws !== ws) return;
      if (edge.lostAt === 0 || edge.backAt !== 0) {
        edge.lostAt = Date.now();
        edge.backAt = 0;
      }
      const delay = backoffDelay(edge.attempt, { baseMs: DEFAULT_BACKOFF.baseMs, capMs: DEFAULT_BACKOFF.capMs, random: Math.random });
      edge.attempt += 1;
      setTimeout(() => void connect(edge).catch(() => undefined), delay);
    });
  });
}

async function start(args: ClusterEdgesArgs): Promise<ClusterEdgesInfo> {
  const started = Date.now();
  const url = `${args.relayUrl.replace(/^http/, 'ws')}${RELAY_PATH}`;
  for (let i = 0; i < args.count; i += 1) {
    const credential = args.credentials[Math.floor(i / args.edgesPerCredential)];
    if (!credential) throw new Error(`not enough credentials for ${args.count} edges`);
    const authorization = `Basic ${Buffer.from(`${credential.connectionId}:${credential.connectionSecret}`).toString('base64')}`;
    edges.push({ instanceId: `${args.prefix}${String(i).padStart(5, '0')}`, url, authorization, attempt: 0, lostAt: 0, backAt: 0 });
  }
  for (let i = 0; i < edges.length; i += BATCH) await Promise.all(edges.slice(i, i + BATCH).map(connect));
  return { instanceIds: edges.map((e) => e.instanceId), ms: Date.now() - started };
}

/** Edges that lost their socket at or after `since`, and how long each took to be registered again. */
function failover(args: { since: number }): FailoverReport {
  const back: number[] = [];
  let lost = 0;
  for (const edge of edges) {
    if (edge.lostAt < args.since) continue;
    lost += 1;
    if (edge.backAt !== 0) back.push(edge.backAt - args.since);
  }
  return { lost, back };
}

serveParent({ start, failover, answered: () => commandsAnswered }, async () => {
  stopping = true;
  for (const edge of edges) edge.ws?.terminate();
});
