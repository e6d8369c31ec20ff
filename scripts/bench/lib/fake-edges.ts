// Bench child: many lightweight fake edges, one WebSocket each, that authenticate with
// connection credentials, register under distinct instance ids and confirm every command
// at once. They live in their own process so the relay's memory is measured alone.
import WebSocket from 'ws';
import { RELAY_PATH, type EdgeMessage, type RelayMessage } from '../../../src/relay-protocol';
import { serveParent } from './child-endpoint';

export interface FakeEdgesArgs {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  readonly count: number;
  /** Instance ids are `<prefix><index>`. */
  readonly prefix: string;
  /**
   * The loopback address the sockets leave from (127.0.0.x): one source address has ~28,000
   * ephemeral ports (32768–60999) towards one listening address, so larger fleets spread
   * over several children, each with its own.
   */
  readonly localAddress?: string;
}

export interface FakeEdgesInfo {
  readonly instanceIds: string[];
  /** Wall time to connect and register all of them. */
  readonly ms: number;
}

/** Sockets opened at once while connecting; more would only queue at the relay. */
const BATCH = 50;
const REGISTER_TIMEOUT_MS = 10_000;
const STATUS = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };
const sockets: WebSocket[] = [];
let commandsAnswered = 0;

function connectOne(args: FakeEdgesArgs, instanceId: string): Promise<void> {
  const url = `${args.relayUrl.replace(/^http/, 'ws')}${RELAY_PATH}`;
  const authorization = `Basic ${Buffer.from(`${args.connectionId}:${args.connectionSecret}`).toString('base64')}`;
  const ws = new WebSocket(url, { headers: { authorization }, perMessageDeflate: false, ...(args.localAddress ? { localAddress: args.localAddress } : {}) });
  sockets.push(ws);
  const send = (message: EdgeMessage) => ws.send(JSON.stringify(message));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${instanceId} did not register in time`)), REGISTER_TIMEOUT_MS);
    ws.once('open', () => send({ type: 'register', instance_id: instanceId, hostname: 'bench-fake-edge', version: 'bench', status: STATUS }));
    ws.once('error', reject);
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as RelayMessage;
      if (message.type === 'registered') {
        clearTimeout(timer);
        resolve();
      } else if (message.type === 'command') {
        commandsAnswered += 1;
        send({ type: 'command_result', request_id: message.request_id, ok: true, status: STATUS });
      } else if (message.type === 'error') {
        reject(new Error(`relay error ${message.code}`));
      }
    });
  });
}

async function start(args: FakeEdgesArgs): Promise<FakeEdgesInfo> {
  const started = process.hrtime.bigint();
  const instanceIds = Array.from({ length: args.count }, (_v, i) => `${args.prefix}${String(i).padStart(args.count > 10_000 ? 5 : 4, '0')}`);
  for (let i = 0; i < instanceIds.length; i += BATCH) {
    await Promise.all(instanceIds.slice(i, i + BATCH).map((id) => connectOne(args, id)));
  }
  return { instanceIds, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

serveParent({ start, answered: () => commandsAnswered }, async () => {
  for (const ws of sockets) ws.terminate();
});
