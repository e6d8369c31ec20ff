import type { RawData, WebSocket } from 'ws';
import type { EdgeConnection } from './relay-store';
import type { Logger } from '../observability';
import type { CommandName, DecisionRecord, EdgeMessage, EdgeStatus, RelayMessage, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import { createFrameBucket } from './frame-rate';
import { parseEdgeFrame } from './parse-edge-frame';
import { registerEdge } from './register-edge';
import { createPendingCommands, type PendingCommands } from './pending-commands';
import { createPendingSamples, type DecisionSampleReply, type PendingSamples } from './pending-samples';
import { edgeError, instanceDisconnected } from './relay-errors';
import type { InstanceKey } from './registration';
import type { RegistrationStore } from './registration-store';
import type { RegistrationWrite } from './relay-database';

/** Bad frames tolerated on one connection before it is closed. */
export const MAX_BAD_FRAMES = 5;
/** Tried decisions that may wait on one edge at once; more get 429 `too_many_pending`. */
export const MAX_PENDING_TRIES = 8;

/** One authenticated edge connection, before and after its `register` frame. */
export interface EdgeSession {
  readonly connection: EdgeConnection;
  /** Set once the edge has registered. */
  readonly instanceId: string | undefined;
  /** Tenant and instance id, once registered. */
  readonly key: InstanceKey | undefined;
  /**
   * Sends a command and resolves with the edge's status once it confirms; waits at most the
   * exec timeout, or `timeoutMs` when shorter (a broadcast's remaining time).
   */
  send(command: CommandName, timeoutMs?: number): Promise<EdgeStatus>;
  /** Asks for the edge's decision sample and resolves once its last chunk arrived. */
  sample(): Promise<DecisionSampleReply>;
  /** Asks the edge to decide one request without recording it ("Try a decision"); resolves with its answer. */
  tryDecision(request: TryDecisionRequest): Promise<TryDecisionResult>;
  /**
   * Queues one write of this session's registration behind the ones before it, so they
   * are applied in order even where the engine runs statements concurrently. Resolves
   * false when the database refused it (logged there); the queue goes on.
   */
  record(what: string, write: (key: InstanceKey) => Promise<unknown>): Promise<boolean>;
  close(code: number, reason: string): void;
}

/** Dependencies of {@link startEdgeSession}. */
export interface EdgeSessionDeps {
  readonly registrations: RegistrationStore;
  /**
   * Runs one write to the registration table; false when the database refused it (locked,
   * read-only, disk full). The error is logged there; it never rejects.
   */
  readonly store: RegistrationWrite;
  readonly logger: Logger;
  readonly now: () => number;
  readonly execTimeoutMs: number;
  readonly registerTimeoutMs: number;
  readonly maxPending: number;
  /**
   * Called after a successful `register`; the relay replaces any older session. The edge
   * hears `registered` once what it returns has settled (cluster mode: the presence claim).
   */
  readonly onRegistered: (session: EdgeSession) => Promise<void> | undefined;
  readonly onClosed: (session: EdgeSession) => void;
  /** Takes the decision records a registered edge sent (docs/reference/api.md, "Decision records"); without it they are dropped. */
  readonly onDecisions?: (key: InstanceKey, records: readonly DecisionRecord[]) => void;
}

/** What of a status is stored, as one comparable string. */
function statusFingerprint(status: EdgeStatus): string {
  return `${status.policy_name}\u0000${status.policy_digest ?? ''}\u0000${status.directory_revision}`;
}

/**
 * Runs the relay's side of the protocol on one socket: the first frame must be `register`
 * within `registerTimeoutMs`; every frame is schema-checked (the edge is never trusted);
 * bad frames get a stable `bad_frame` error and, past {@link MAX_BAD_FRAMES}, a close.
 */
export function startEdgeSession(ws: WebSocket, connection: EdgeConnection, deps: EdgeSessionDeps): EdgeSession {
  const log = deps.logger.child({ connection_id: connection.connectionId });
  const pending = createPendingCommands({ timeoutMs: deps.execTimeoutMs, max: deps.maxPending });
  // Samples and tried decisions are rare (people at a page ask for them): their maps are made
  // on the first request, not for each of the thousands of connected edges.
  let samples: PendingSamples | undefined;
  let tries: PendingCommands<TryDecisionResult> | undefined;
  let instanceId: string | undefined;
  let key: InstanceKey | undefined;
  let badFrames = 0;
  const frames = createFrameBucket();
  // This session's registration writes, one after the other (the store never rejects).
  let writes: Promise<boolean> = Promise.resolve(true);
  const inOrder = (what: string, id: string, write: () => Promise<unknown>): Promise<boolean> => {
    const next = writes.then(() => deps.store(what, id, write));
    writes = next;
    return next;
  };
  // The status last written for this edge: a command that changed nothing (the usual "sync
  // now" with nothing new) costs no write; last_seen then moves with the heartbeat.
  let storedStatus: string | undefined;
  const unchanged = Promise.resolve();
  /** Stores a reported status unless it is the one stored; settles once stored (or not: the store never rejects). */
  const recordStatus = (id: InstanceKey, status: EdgeStatus): Promise<void> => {
    const fingerprint = statusFingerprint(status);
    if (fingerprint === storedStatus) return unchanged;
    storedStatus = fingerprint;
    return inOrder('status', id.instanceId, () => deps.registrations.updateStatus(id, status, deps.now())).then((ok) => {
      if (!ok && storedStatus === fingerprint) storedStatus = undefined; // not stored: write it next time
    });
  };
  // Set while a `register` frame is being stored: frames after it wait for the outcome.
  let registering: Promise<void> | undefined;

  const reply = (message: RelayMessage) => ws.send(JSON.stringify(message));
  const close = (code: number, reason: string) => ws.close(code, reason);
  const registerTimer = setTimeout(() => close(CLOSE_CODES.policyViolation, 'register timeout'), deps.registerTimeoutMs);

  const session: EdgeSession = {
    connection,
    get instanceId() {
      return instanceId;
    },
    get key() {
      return key;
    },
    send(command, timeoutMs) {
      if (ws.readyState !== ws.OPEN) return Promise.reject(instanceDisconnected());
      const { requestId, result, timeoutMs: wait } = pending.add(timeoutMs);
      // The edge spends this wait (retries included) and answers before exec's 504.
      reply({ type: 'command', request_id: requestId, command, timeout_ms: wait });
      return result;
    },
    sample() {
      if (ws.readyState !== ws.OPEN) return Promise.reject(instanceDisconnected());
      samples ??= createPendingSamples({ timeoutMs: deps.execTimeoutMs });
      const { requestId, result } = samples.add();
      reply({ type: 'sample_request', request_id: requestId });
      return result;
    },
    tryDecision(request) {
      if (ws.readyState !== ws.OPEN) return Promise.reject(instanceDisconnected());
      tries ??= createPendingCommands<TryDecisionResult>({ timeoutMs: deps.execTimeoutMs, max: MAX_PENDING_TRIES });
      const { requestId, result } = tries.add();
      reply({ type: 'try_decision', request_id: requestId, request });
      return result;
    },
    record(what, write) {
      const k = key;
      if (k === undefined) return Promise.resolve(false);
      return inOrder(what, k.instanceId, () => write(k));
    },
    close,
  };

  async function register(message: Extract<EdgeMessage, { type: 'register' }>): Promise<void> {
    clearTimeout(registerTimer);
    // Stored before the edge hears it is registered, as the protocol promises.
    const result = await registerEdge(message, connection, { registrations: deps.registrations, store: inOrder, now: deps.now, log });
    if (!result.ok) {
      reply(result.reply);
      close(result.closeCode, result.closeReason);
      return;
    }
    const id = message.instance_id;
    if (ws.readyState !== ws.OPEN) {
      // The socket closed while the registration was being stored: it is not connected.
      void inOrder('disconnect', id, () => deps.registrations.markDisconnected({ tenantId: connection.tenantId, instanceId: id }, deps.now()));
      return;
    }
    instanceId = id;
    key = { tenantId: connection.tenantId, instanceId: id };
    storedStatus = statusFingerprint(message.status);
    await deps.onRegistered(session);
    if (ws.readyState !== ws.OPEN) return;
    reply({ type: 'registered', instance_id: instanceId });
    log.info({ instance_id: instanceId, hostname: message.hostname, version: message.version }, 'edge registered');
  }

  function handle(message: EdgeMessage, id: InstanceKey): void {
    switch (message.type) {
      case 'register':
        reply({ type: 'error', code: 'already_registered', message: 'this connection has already registered' });
        return;
      case 'status':
        void recordStatus(id, message.status);
        return;
      case 'sample_chunk':
        if (!(samples?.receive(message) ?? false)) {
          reply({ type: 'error', code: 'unknown_request', message: 'no sample is waiting for this request id' });
          return;
        }
        // Asked for, and bounded by the sample limits, like command results.
        frames.refund();
        if (message.done) void recordStatus(id, message.status);
        return;
      case 'try_result': {
        const { type: _type, request_id: requestId, ...result } = message;
        if (!(tries?.resolve(requestId, result) ?? false)) {
          reply({ type: 'error', code: 'unknown_request', message: 'no tried decision is waiting for this request id' });
          return;
        }
        frames.refund();
        return;
      }
      case 'decisions':
        // Unsolicited and counted by the frame bucket like any frame; stored off this handler.
        deps.onDecisions?.(id, message.records);
        return;
      case 'command_result': {
        // A failed sample or try is reported the way a failed command is, under its request id.
        let known: boolean;
        if (message.ok) {
          // The exec answers once the status it confirmed is stored: a registration read after
          // the 200 shows it (docs/reference/api.md, beside the drift fields).
          known = pending.has(message.request_id);
          const { status } = message;
          if (known) pending.resolve(message.request_id, recordStatus(id, status).then(() => status));
        } else {
          const failure = edgeError(message.error.message, message.error.code);
          known = pending.reject(message.request_id, failure) || (samples?.reject(message.request_id, failure) ?? false) || (tries?.reject(message.request_id, failure) ?? false);
        }
        if (!known) {
          // A result for a command never sent (or already timed out) changes nothing.
          reply({ type: 'error', code: 'unknown_request', message: 'no command is waiting for this request id' });
          return;
        }
        // The relay asked for this frame; its pending-command cap already bounds how many come.
        frames.refund();
        return;
      }
    }
  }

  /** Last line of defence: whatever one edge's frame breaks closes that edge, not the process. */
  function guarded(work: () => void): void {
    try {
      work();
    } catch (err) {
      log.error({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, instance_id: instanceId }, 'edge frame handling failed');
      close(CLOSE_CODES.internalError, 'internal error');
    }
  }

  ws.on('message', function onMessage(data: RawData, isBinary: boolean) {
    guarded(() => receive(data, isBinary));
  });

  function receive(data: RawData, isBinary: boolean): void {
    if (ws.readyState !== ws.OPEN) return; // closing: frames still in flight change nothing
    if (!frames.take()) {
      log.warn({ instance_id: instanceId }, 'edge frame rate exceeded');
      close(CLOSE_CODES.policyViolation, 'frame rate exceeded');
      return;
    }
    const message = parseEdgeFrame(data, isBinary);
    if (!message) {
      badFrames += 1;
      reply({ type: 'error', code: 'bad_frame', message: 'the frame is not JSON or not a known message' });
      if (badFrames > MAX_BAD_FRAMES) close(CLOSE_CODES.policyViolation, 'too many bad frames');
      return;
    }
    dispatch(message);
  }

  function dispatch(message: EdgeMessage): void {
    if (registering !== undefined) {
      // Handled in arrival order once the registration's outcome is known.
      void registering.then(() => {
        if (ws.readyState === ws.OPEN) guarded(() => dispatch(message));
      });
      return;
    }
    if (key !== undefined) {
      handle(message, key);
    } else if (message.type === 'register') {
      const done = register(message).catch((err: unknown) => {
        log.error({ err_name: (err as Error).name, instance_id: message.instance_id }, 'edge registration failed');
        close(CLOSE_CODES.internalError, 'internal error');
      });
      registering = done.finally(() => {
        registering = undefined;
      });
    } else {
      reply({ type: 'error', code: 'not_registered', message: 'the first frame must be register' });
      close(CLOSE_CODES.policyViolation, 'not registered');
    }
  }

  // 'error' precedes 'close' (e.g. a frame over maxPayload → 1009); without a listener it would throw.
  ws.on('error', (err) => log.info({ err: err.message }, 'edge socket error'));
  ws.once('close', (code: number) => {
    clearTimeout(registerTimer);
    pending.rejectAll(instanceDisconnected());
    samples?.rejectAll(instanceDisconnected());
    tries?.rejectAll(instanceDisconnected());
    log.info({ instance_id: instanceId, code }, 'edge disconnected');
    deps.onClosed(session);
  });
  return session;
}
