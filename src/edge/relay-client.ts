import WebSocket from 'ws';
import {
  MAX_FRAME_BYTES,
  parseFrame,
  relayMessageSchema,
  type CommandName,
  type EdgeMessage,
} from '../relay-protocol';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff';
import { basicAuthorization } from './control-plane-client';
import { relaySocketUrl, type RelayClient, type RelayClientOptions } from './relay-client-contract';
import { sampleFrames } from './sample-frames';
import { systemTimers } from './timers';

/**
 * Connects out to the relay (the edge needs no inbound port), authenticates at the
 * upgrade with RFC 7617 Basic credentials, registers, and answers commands. Every
 * received frame is size-limited and schema-checked; the relay pings, `ws` answers
 * pongs, and a relay silent for `silenceTimeoutMs` is treated as dead (websockets/ws
 * README, "How to detect and close broken connections"). Reconnects use exponential
 * backoff with full jitter.
 */
export function createRelayClient(options: RelayClientOptions): RelayClient {
  const { logger } = options;
  const timers = options.timers ?? systemTimers;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff, random };
  const silenceTimeoutMs = options.silenceTimeoutMs ?? 90_000;
  const stableAfterMs = options.stableAfterMs ?? 10_000;
  const url = relaySocketUrl(options.relayUrl);
  const authorization = basicAuthorization(options.credentials);

  let socket: WebSocket | undefined;
  let attempt = 0;
  let openedAt: number | undefined;
  let reconnectTimer: unknown;
  let silenceTimer: unknown;
  let stopped = false;
  let registrations = 0;

  function send(message: EdgeMessage): void {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function armSilenceTimer(ws: WebSocket): void {
    timers.clearTimeout(silenceTimer);
    silenceTimer = timers.setTimeout(() => {
      logger.warn({ silence_ms: silenceTimeoutMs }, 'relay silent, dropping the connection');
      ws.terminate();
    }, silenceTimeoutMs);
  }

  async function runCommand(ws: WebSocket, requestId: string, command: CommandName, timeoutMs: number | undefined): Promise<void> {
    const outcome = await options.onCommand(command, timeoutMs);
    // A request id belongs to the connection it came on; after a reconnect nobody waits for it.
    if (socket !== ws) return;
    if (outcome.ok) send({ type: 'command_result', request_id: requestId, ok: true, status: outcome.status });
    else {
      const error = { code: outcome.error.code.slice(0, 64), message: outcome.error.message.slice(0, 1024) };
      send({ type: 'command_result', request_id: requestId, ok: false, error });
    }
  }

  /**
   * Answers a `sample_request` with the sample's frames. A failure reading it is answered
   * like a failed command (exec's 502) instead of being thrown out of the socket's handler,
   * where it would take the process (an app, for an embedded edge) down.
   */
  function sendSample(requestId: string): void {
    let frames;
    try {
      frames = sampleFrames(requestId, options.decisionSample(), options.status());
    } catch (err) {
      logger.error({ err, request_id: requestId }, 'decision sample failed');
      send({ type: 'command_result', request_id: requestId, ok: false, error: { code: 'sample_failed', message: 'the edge could not read its decision sample (see the edge log)' } });
      return;
    }
    for (const frame of frames) send(frame);
  }

  function onMessage(ws: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    armSilenceTimer(ws);
    const frame = isBinary ? undefined : parseFrame(relayMessageSchema, data);
    if (!frame) {
      logger.warn('ignoring a malformed frame from the relay');
      return;
    }
    switch (frame.type) {
      case 'registered':
        logger.info({ instance_id: frame.instance_id }, 'registered with the relay');
        registrations += 1;
        options.onRegistered?.(registrations > 1);
        break;
      case 'command':
        logger.info({ command: frame.command, request_id: frame.request_id }, 'relay command');
        void runCommand(ws, frame.request_id, frame.command, frame.timeout_ms);
        break;
      case 'try_decision': {
        const outcome = options.tryDecision?.(frame.request) ?? { ok: false as const, error: { code: 'try_failed', message: 'this edge cannot try decisions' } };
        if (outcome.ok) send({ type: 'try_result', request_id: frame.request_id, ...outcome.result });
        else send({ type: 'command_result', request_id: frame.request_id, ok: false, error: { code: outcome.error.code.slice(0, 64), message: outcome.error.message.slice(0, 1024) } });
        break;
      }
      case 'sample_request':
        logger.info({ request_id: frame.request_id }, 'relay asked for the decision sample');
        sendSample(frame.request_id);
        break;
      case 'error':
        logger.warn({ code: frame.code, detail: frame.message }, 'relay reported an error');
        break;
    }
  }

  function scheduleReconnect(): void {
    if (stopped) return;
    if (openedAt !== undefined && now() - openedAt >= stableAfterMs) attempt = 0;
    openedAt = undefined;
    const delay = backoffDelay(attempt, backoff);
    attempt += 1;
    logger.info({ delay_ms: delay, attempt }, 'relay reconnect scheduled');
    reconnectTimer = timers.setTimeout(connect, delay);
  }

  function connect(): void {
    if (stopped) return;
    const ws = new WebSocket(url, { headers: { authorization }, maxPayload: MAX_FRAME_BYTES, handshakeTimeout: 10_000 });
    socket = ws;
    ws.on('open', () => {
      openedAt = now();
      armSilenceTimer(ws);
      const { instanceId, hostname, version } = options;
      send({ type: 'register', instance_id: instanceId, hostname, version, status: options.status() });
    });
    ws.on('ping', () => armSilenceTimer(ws));
    ws.on('message', (data, isBinary) => onMessage(ws, data, isBinary));
    // The message only: the error never contains our credentials, but keep logs terse.
    ws.on('error', (err) => logger.warn({ err: err.message }, 'relay connection error'));
    ws.on('close', (code) => {
      timers.clearTimeout(silenceTimer);
      if (socket === ws) socket = undefined;
      logger.info({ code }, 'relay connection closed');
      scheduleReconnect();
    });
  }

  return {
    start() {
      stopped = false;
      connect();
    },
    sendStatus() {
      send({ type: 'status', status: options.status() });
    },
    send,
    get connected() {
      return socket?.readyState === WebSocket.OPEN;
    },
    async close() {
      stopped = true;
      timers.clearTimeout(reconnectTimer);
      timers.clearTimeout(silenceTimer);
      const ws = socket;
      if (!ws || ws.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1001, 'edge shutting down');
        // A relay that never answers the closing handshake must not stall shutdown.
        setTimeout(() => ws.terminate(), 1_000).unref();
      });
    },
  };
}
