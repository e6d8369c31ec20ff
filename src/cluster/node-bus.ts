import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../observability';
import { edgeError, edgeTimeout, instanceNotConnected, relayClosing } from '../relay';
import { maxBusBytes, parseBusMessage, type BusAsk, type BusReply, type BusRequest } from './bus-messages';
import { callRedis, disconnectRedis, redisReady, watchRedis } from './connect-redis';
import { checkNodeId, redisKeys } from './redis-keys';
import { tooManyInFlight } from './routing-errors';
import { fromWireError, toWireError } from './wire-errors';

/** Routed requests one node may wait on at once, and handle at once for others; more get 429. */
export const MAX_BUS_IN_FLIGHT = 1024;

/** Answers another node's request; resolves with a JSON-able result or throws an HttpError. */
export type BusRequestHandler = (request: BusRequest) => Promise<unknown>;

/** Options of {@link startNodeBus}. */
export interface NodeBusOptions {
  /** A client from `connectRedis`; the bus publishes on it and subscribes on a duplicate. */
  readonly redis: Redis;
  /** This node's id (`NODE_ID_PATTERN`). */
  readonly node: string;
  readonly logger: Logger;
  readonly prefix?: string;
  readonly maxInFlight?: number;
  /** How long start-up waits for Redis (default 5 s). */
  readonly readyTimeoutMs?: number;
}

/** Request/reply between control-plane nodes over Redis pub/sub. */
export interface NodeBus {
  readonly node: string;
  /** Requests this node is waiting on. */
  readonly inFlight: number;
  /**
   * Asks `target` and resolves with its result, or rejects with the HttpError it answered,
   * 409 `instance_not_connected` when no node listens on its inbox (gone or dead), 504
   * `edge_timeout` after `timeoutMs`, 429 beyond the in-flight cap, 503 `routing_unavailable`
   * while Redis is unreachable.
   */
  request<T = unknown>(target: string, ask: BusAsk, timeoutMs: number): Promise<T>;
  /** Sets the one handler of requests from other nodes. */
  onRequest(handler: BusRequestHandler): void;
  /** Unsubscribes and fails waiting requests with 503 `relay_closing`; the caller's client stays open. */
  close(): Promise<void>;
}

interface Waiter {
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Subscribes this node's inbox (`<prefix>node:<id>:inbox`) on a dedicated connection, which
 * ioredis re-subscribes by itself after a reconnect, and resolves once it listens. Every
 * message there is size-capped and schema-checked; junk is dropped and logged, never thrown.
 */
export async function startNodeBus(options: NodeBusOptions): Promise<NodeBus> {
  const { redis, node } = options;
  checkNodeId(node);
  const maxInFlight = options.maxInFlight ?? MAX_BUS_IN_FLIGHT;
  if (!(Number.isInteger(maxInFlight) && maxInFlight > 0)) throw new Error('maxInFlight must be a positive integer');
  const keys = redisKeys(options.prefix);
  const inbox = keys.inbox(node);
  const log = options.logger.child({ component: 'node-bus', node });
  const waiting = new Map<string, Waiter>();
  let handler: BusRequestHandler | undefined;
  let handling = 0;
  let closed = false;

  const subscriber = redis.duplicate({ connectionName: `${node}-inbox` });
  watchRedis(subscriber, log.child({ redis: 'inbox' }));
  try {
    await redisReady(subscriber, options.readyTimeoutMs ?? 5000);
    await subscriber.subscribe(inbox);
  } catch (err) {
    await disconnectRedis(subscriber);
    throw err;
  }

  // A junk flood must not become a log flood: one line per second with the count.
  let dropped = 0;
  let lastDropLog = 0;
  function drop(reason: string, bytes: number): void {
    dropped += 1;
    const now = Date.now();
    if (now - lastDropLog < 1000) return;
    log.warn({ reason, bytes, dropped }, 'bus message dropped');
    lastDropLog = now;
    dropped = 0;
  }

  function take(id: string): Waiter | undefined {
    const waiter = waiting.get(id);
    if (!waiter) return undefined;
    waiting.delete(id);
    clearTimeout(waiter.timer);
    return waiter;
  }

  async function publish(channel: string, message: BusRequest | BusReply): Promise<number> {
    const text = JSON.stringify(message);
    if (Buffer.byteLength(text) > maxBusBytes(message.type)) throw edgeError('the answer is too large to route between nodes');
    return callRedis(redis, () => redis.publish(channel, text));
  }

  async function answer(request: BusRequest): Promise<void> {
    let reply: BusReply;
    try {
      if (!handler || closed) throw instanceNotConnected();
      reply = { type: 'reply', id: request.id, ok: true, result: await handler(request) };
    } catch (err) {
      reply = { type: 'reply', id: request.id, ok: false, error: toWireError(err) };
    }
    const to = keys.inbox(request.from);
    try {
      await publish(to, reply).catch((err: unknown) => {
        if (!reply.ok) throw err;
        return publish(to, { type: 'reply', id: request.id, ok: false, error: toWireError(err) });
      });
    } catch (err) {
      log.warn({ err: (err as Error).message, to: request.from }, 'bus reply not sent');
    }
  }

  subscriber.on('messageBuffer', (_channel: Buffer, frame: Buffer) => {
    try {
      receive(frame);
    } catch (err) {
      // Last line of defence: whatever one message breaks, the subscriber connection lives on.
      log.error({ err: (err as Error).message }, 'bus message handling failed');
    }
  });

  function receive(frame: Buffer): void {
    const message = parseBusMessage(frame);
    if (message === 'too_large' || message === undefined) {
      drop(message === 'too_large' ? 'too large' : 'not a bus message', frame.length);
      return;
    }
    if (message.type === 'reply') {
      const waiter = take(message.id);
      if (!waiter) return; // timed out already, or a reply to someone else's request
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(fromWireError(message.error));
      return;
    }
    if (handling >= maxInFlight) {
      publish(keys.inbox(message.from), { type: 'reply', id: message.id, ok: false, error: toWireError(tooManyInFlight()) }).catch(() => undefined);
      return;
    }
    handling += 1;
    answer(message).finally(() => {
      handling -= 1;
    });
  }

  return {
    node,
    get inFlight() {
      return waiting.size;
    },
    request<T>(target: string, ask: BusAsk, timeoutMs: number): Promise<T> {
      if (closed) return Promise.reject(relayClosing());
      if (waiting.size >= maxInFlight) return Promise.reject(tooManyInFlight());
      checkNodeId(target);
      const id = randomUUID();
      const message: BusRequest = { type: 'request', id, from: node, kind: ask.kind, tenant: ask.tenant };
      if (ask.instance !== undefined) message.instance = ask.instance;
      if (ask.instances !== undefined) message.instances = [...ask.instances];
      if (ask.timeoutMs !== undefined) message.timeout_ms = ask.timeoutMs;
      if (ask.command !== undefined) message.command = ask.command;
      if (ask.request !== undefined) message.request = ask.request;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => take(id)?.reject(edgeTimeout(timeoutMs)), timeoutMs);
        waiting.set(id, { resolve: resolve as (result: unknown) => void, reject, timer });
        publish(keys.inbox(target), message).then(
          (receivers) => {
            if (receivers === 0) take(id)?.reject(instanceNotConnected());
          },
          (err: Error) => take(id)?.reject(err),
        );
      });
    },
    onRequest(next) {
      handler = next;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const id of [...waiting.keys()]) take(id)?.reject(relayClosing());
      await disconnectRedis(subscriber);
    },
  };
}
