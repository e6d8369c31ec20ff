// Bench child: a fake edge host of one tenant that floods the relay with decision records, as
// issue 37's H1 did — several sockets on one connection credential, each registered, each
// sending `decisions` frames as large as a frame may be (records with every text at its
// limit) at 90 % of the relay's frame rate, so the relay never closes them for outrunning it.
// Its own process: the flood's cost to send is not the control plane's to measure.
import WebSocket from 'ws';
import { DECISION_RECORD_LIMITS, MAX_FRAME_BYTES, RELAY_PATH, type DecisionRecord, type EdgeMessage, type RelayMessage } from '../../../src/relay-protocol';
import { FRAME_RATE } from '../../../src/relay';
import { serveParent } from './child-endpoint';

export interface DecisionFloodArgs {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  readonly sockets: number;
  /** Instance ids are `<prefix><index>`. */
  readonly prefix: string;
}

/** What one flood sent, from its start to its stop. */
export interface FloodCounts {
  readonly frames: number;
  readonly records: number;
  readonly bytes: number;
  /** Frames not sent because the socket's send buffer held more than {@link MAX_BUFFERED}: the relay was not reading. */
  readonly held: number;
  /** Sockets the relay closed while the flood ran (with their close codes). */
  readonly closed: readonly number[];
}

const REGISTER_TIMEOUT_MS = 10_000;
const STATUS = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };
/** Frames a second per socket: under the relay's steady rate, so its bucket never runs dry. */
const FRAMES_PER_SECOND = FRAME_RATE.perSecond * 0.9;
/** A socket whose unsent bytes pass this skips its turn (TCP's back-pressure, as a real sender meets it). */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** A record with every text at its limit and every reason there: the most a record can cost. */
function maximalRecord(i: number): DecisionRecord {
  const text = (tag: string, max: number = DECISION_RECORD_LIMITS.maxText) => `${tag}-${i}-`.padEnd(max, 'x');
  return {
    time: Date.now(),
    request_id: text('req'),
    app: text('app', 64),
    principal: { id: text('principal'), email: `${text('mail', DECISION_RECORD_LIMITS.maxText - 12)}@example.com` },
    action: text('action'),
    resource: { type: text('type'), id: text('resource') },
    decision: i % 2 === 0 ? 'allow' : 'deny',
    reasons: Array.from({ length: DECISION_RECORD_LIMITS.maxReasons }, (_v, r) => ({ policy: text(`policy${r}`), comment: text(`comment${r}`, DECISION_RECORD_LIMITS.maxReasonComment) })),
    policy_digest: `sha256:${'b'.repeat(64)}`,
    directory_revision: 1,
    latency_us: 12,
  };
}

/** The largest `decisions` frame of maximal records that fits the relay's frame size, serialized once. */
function largestFrame(): { text: string; records: number } {
  let records: DecisionRecord[] = [];
  for (let i = 0; i < DECISION_RECORD_LIMITS.maxRecordsPerFrame; i += 1) {
    const next = [...records, maximalRecord(i)];
    if (Buffer.byteLength(JSON.stringify({ type: 'decisions', records: next })) > MAX_FRAME_BYTES - 1024) break;
    records = next;
  }
  return { text: JSON.stringify({ type: 'decisions', records }), records: records.length };
}

const sockets: WebSocket[] = [];
const closedCodes: number[] = [];
let timer: NodeJS.Timeout | undefined;
let counts = { frames: 0, records: 0, bytes: 0, held: 0 };

function connectOne(args: DecisionFloodArgs, instanceId: string): Promise<void> {
  const url = `${args.relayUrl.replace(/^http/, 'ws')}${RELAY_PATH}`;
  const authorization = `Basic ${Buffer.from(`${args.connectionId}:${args.connectionSecret}`).toString('base64')}`;
  const ws = new WebSocket(url, { headers: { authorization }, perMessageDeflate: false });
  sockets.push(ws);
  const send = (message: EdgeMessage) => ws.send(JSON.stringify(message));
  ws.on('close', (code) => {
    if (timer !== undefined) closedCodes.push(code);
  });
  return new Promise((resolve, reject) => {
    const registerTimer = setTimeout(() => reject(new Error(`${instanceId} did not register in time`)), REGISTER_TIMEOUT_MS);
    ws.once('open', () => send({ type: 'register', instance_id: instanceId, hostname: 'bench-flood', version: 'bench', status: STATUS }));
    ws.once('error', reject);
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as RelayMessage;
      if (message.type === 'registered') {
        clearTimeout(registerTimer);
        resolve();
      } else if (message.type === 'command') {
        send({ type: 'command_result', request_id: message.request_id, ok: true, status: STATUS });
      }
    });
  });
}

async function start(args: DecisionFloodArgs): Promise<{ recordsPerFrame: number; frameBytes: number }> {
  await Promise.all(Array.from({ length: args.sockets }, (_v, i) => connectOne(args, `${args.prefix}${i}`)));
  const frame = largestFrame();
  return { recordsPerFrame: frame.records, frameBytes: Buffer.byteLength(frame.text) };
}

/** Starts sending: every socket one frame per tick, at {@link FRAMES_PER_SECOND}. */
function flood(): null {
  const frame = largestFrame();
  const bytes = Buffer.byteLength(frame.text);
  counts = { frames: 0, records: 0, bytes: 0, held: 0 };
  closedCodes.length = 0;
  timer = setInterval(() => {
    for (const ws of sockets) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > MAX_BUFFERED) {
        counts.held += 1;
        continue;
      }
      ws.send(frame.text);
      counts.frames += 1;
      counts.records += frame.records;
      counts.bytes += bytes;
    }
  }, 1000 / FRAMES_PER_SECOND);
  return null;
}

/** Stops sending; resolves with what this flood sent. */
function stop(): FloodCounts {
  clearInterval(timer);
  timer = undefined;
  return { ...counts, closed: [...closedCodes] };
}

serveParent({ start, flood, stopFlood: stop }, async () => {
  clearInterval(timer);
  for (const ws of sockets) ws.terminate();
});
