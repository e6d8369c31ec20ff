import { z } from 'zod';
import { COMMANDS, tryDecisionRequestSchema, type CommandName, type TryDecisionRequest } from '../relay-protocol';
import { MAX_KEY_PART_LENGTH, NODE_ID_PATTERN } from './redis-keys';

/** The largest bus request a node publishes or reads; a larger one is dropped and logged. */
export const MAX_BUS_MESSAGE_BYTES = 64 * 1024;

/**
 * The largest bus reply: a routed decision sample is up to 64 frames of 64 KiB (4 MiB,
 * `DECISION_SAMPLE_LIMITS`), re-encoded no larger, plus the envelope. Every other reply is
 * far smaller. A larger reply is dropped at the receiver (the asker answers 504).
 */
export const MAX_BUS_REPLY_BYTES = 5 * 1024 * 1024;

/**
 * What one node may ask of the node that holds an edge's socket (`broadcast`: of several
 * edges' sockets; `try`: "Try a decision", its `request` as the edge's `try_decision` carries it).
 */
export const BUS_REQUEST_KINDS = ['exec', 'sample', 'replaced', 'broadcast', 'try'] as const;

/**
 * Instance ids in one routed broadcast request: 512 ids of at most 64 characters stay well
 * under {@link MAX_BUS_MESSAGE_BYTES}; a node's larger share is sent as several requests.
 */
export const MAX_BUS_BROADCAST_IDS = 512;

/** The longest wait a routed broadcast may ask for (its deadline is the exec timeout). */
const MAX_BUS_TIMEOUT_MS = 10 * 60 * 1000;
export type BusRequestKind = (typeof BUS_REQUEST_KINDS)[number];

const id = z.uuid();
const node = z.string().regex(NODE_ID_PATTERN);
const part = z.string().min(1).max(MAX_KEY_PART_LENGTH);

const requestSchema = z.strictObject({
  type: z.literal('request'),
  id,
  from: node,
  kind: z.enum(BUS_REQUEST_KINDS),
  tenant: part,
  instance: part.optional(),
  instances: z.array(part).min(1).max(MAX_BUS_BROADCAST_IDS).optional(),
  timeout_ms: z.int().min(1).max(MAX_BUS_TIMEOUT_MS).optional(),
  command: z.enum(COMMANDS).optional(),
  request: tryDecisionRequestSchema.optional(),
})
  .refine((request) => (request.kind === 'exec' || request.kind === 'broadcast') === (request.command !== undefined), 'exec and broadcast, and only they, name a command')
  .refine((request) => (request.kind === 'try') === (request.request !== undefined), 'a try, and only a try, carries a request')
  .refine(
    (request) =>
      request.kind === 'broadcast'
        ? request.instance === undefined && request.instances !== undefined && request.timeout_ms !== undefined
        : request.instance !== undefined && request.instances === undefined && request.timeout_ms === undefined,
    'a broadcast names instances and a timeout; every other request one instance',
  );

const replySchema = z.discriminatedUnion('ok', [
  z.strictObject({ type: z.literal('reply'), id, ok: z.literal(true), result: z.unknown() }),
  z.strictObject({
    type: z.literal('reply'),
    id,
    ok: z.literal(false),
    error: z.strictObject({ status: z.int().min(400).max(599), code: z.string().min(1).max(64), message: z.string().max(1024) }),
  }),
]);

/**
 * Every message on a node's inbox channel (docs/architecture.md, "Cluster mode: Redis keys
 * and channels"): a request from another node, or the reply to one of ours. Checked like an
 * edge's frame: whatever else is published there is junk, never trusted.
 */
export const busMessageSchema = z.union([requestSchema, replySchema]);
export type BusMessage = z.infer<typeof busMessageSchema>;
export type BusRequest = z.infer<typeof requestSchema>;
export type BusReply = z.infer<typeof replySchema>;

/** The most bytes a message of this type may take on the bus. */
export function maxBusBytes(type: BusMessage['type']): number {
  return type === 'reply' ? MAX_BUS_REPLY_BYTES : MAX_BUS_MESSAGE_BYTES;
}

/** The message in `frame`, or undefined for anything oversized, not JSON, or not a bus message. */
export function parseBusMessage(frame: Buffer): BusMessage | 'too_large' | undefined {
  if (frame.length > MAX_BUS_REPLY_BYTES) return 'too_large';
  let json: unknown;
  try {
    json = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = busMessageSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return frame.length > maxBusBytes(parsed.data.type) ? 'too_large' : parsed.data;
}

/** What a node asks of the node holding an edge's socket. */
export interface BusAsk {
  readonly kind: BusRequestKind;
  readonly tenant: string;
  /** Every kind but `broadcast`. */
  readonly instance?: string;
  /** `broadcast` only: at most `MAX_BUS_BROADCAST_IDS`. */
  readonly instances?: readonly string[];
  /** `broadcast` only: how long the owning node may wait for its edges. */
  readonly timeoutMs?: number;
  /** Required for `exec` and `broadcast`, absent otherwise. */
  readonly command?: CommandName;
  /** Required for `try`, absent otherwise: the decision to try. */
  readonly request?: TryDecisionRequest;
}
