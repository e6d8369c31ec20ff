import type { RawData, WebSocket } from 'ws';
import type { Logger } from '../observability';
import type { CommandName, EdgeMessage, EdgeStatus, RelayMessage, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import { MAX_BAD_FRAMES, type EdgeSession, type EdgeSessionDeps } from './edge-session';
import { EDGE_SESSION_TRANSITIONS, frameAction, registeredKey, type EdgeSessionState } from './edge-session-state';
import { EdgeRequests } from './edge-requests';
import { createFrameBucket } from './frame-rate';
import { handleEdgeFrame, type EdgeFrameContext, type RegisteredFrame } from './handle-edge-frame';
import { parseEdgeFrame } from './parse-edge-frame';
import type { DecisionSampleReply } from './pending-samples';
import { registerEdge, type RegisterFrame, type RegisteringSession } from './register-edge';
import type { InstanceKey } from './registration';
import { RegistrationWrites } from './registration-writes';
import { instanceDisconnected } from './relay-errors';
import type { EdgeConnection } from './relay-store';
import { StateGate } from './state-gate';

/**
 * Runs the relay's side of the protocol on one socket: the first frame must be `register`
 * within `registerTimeoutMs`; every frame is schema-checked (the edge is never trusted);
 * bad frames get a stable `bad_frame` error and, past {@link MAX_BAD_FRAMES}, a close.
 * Which frame each state accepts is {@link frameAction}'s to say; every move of state goes
 * through one {@link StateGate}.
 */
export function startEdgeSession(ws: WebSocket, connection: EdgeConnection, deps: EdgeSessionDeps): EdgeSession {
  return new SocketSession(ws, connection, deps);
}

class SocketSession implements EdgeSession, EdgeFrameContext, RegisteringSession {
  readonly requests: EdgeRequests;
  readonly writes: RegistrationWrites;
  readonly frames = createFrameBucket();
  readonly onDecisions: EdgeSessionDeps['onDecisions'];
  private readonly gate = new StateGate<EdgeSessionState>(EDGE_SESSION_TRANSITIONS, { name: 'awaiting-register' });
  readonly log: Logger;
  private readonly registerTimer: NodeJS.Timeout;
  private badFrames = 0;
  /** Frames that came while the registration was being stored, handled in arrival order once it is. */
  private waiting: EdgeMessage[] | undefined;

  constructor(
    private readonly ws: WebSocket,
    readonly connection: EdgeConnection,
    private readonly deps: EdgeSessionDeps,
  ) {
    this.log = deps.logger.child({ connection_id: connection.connectionId });
    this.requests = new EdgeRequests(deps.execTimeoutMs, deps.maxPending);
    this.writes = new RegistrationWrites(deps.store, deps.registrations, deps.now);
    this.onDecisions = deps.onDecisions;
    this.registerTimer = setTimeout(() => this.close(CLOSE_CODES.policyViolation, 'register timeout'), deps.registerTimeoutMs);
    ws.on('message', (data: RawData, isBinary: boolean) => this.guarded(() => this.receive(data, isBinary)));
    // 'error' precedes 'close' (e.g. a frame over maxPayload → 1009); without a listener it would throw.
    ws.on('error', (err) => this.log.info({ err: err.message }, 'edge socket error'));
    ws.once('close', (code: number) => this.closed(code));
  }

  get state(): EdgeSessionState['name'] {
    return this.gate.state.name;
  }

  get key(): InstanceKey | undefined {
    return registeredKey(this.gate.state);
  }

  send(command: CommandName, timeoutMs?: number): Promise<EdgeStatus> {
    if (!this.open()) return Promise.reject(instanceDisconnected());
    const { requestId, result, timeoutMs: wait } = this.requests.command(timeoutMs);
    // The edge spends this wait (retries included) and answers before exec's 504.
    this.reply({ type: 'command', request_id: requestId, command, timeout_ms: wait });
    return result;
  }

  sample(): Promise<DecisionSampleReply> {
    if (!this.open()) return Promise.reject(instanceDisconnected());
    const { requestId, result } = this.requests.sample();
    this.reply({ type: 'sample_request', request_id: requestId });
    return result;
  }

  tryDecision(request: TryDecisionRequest): Promise<TryDecisionResult> {
    if (!this.open()) return Promise.reject(instanceDisconnected());
    const { requestId, result } = this.requests.tryDecision();
    this.reply({ type: 'try_decision', request_id: requestId, request });
    return result;
  }

  record(what: string, write: (key: InstanceKey) => Promise<unknown>): Promise<boolean> {
    const key = this.key;
    if (key === undefined) return Promise.resolve(false);
    return this.writes.inOrder(what, key.instanceId, () => write(key));
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  reply(message: RelayMessage): void {
    this.ws.send(JSON.stringify(message));
  }

  /** The socket's own state (ws's readyState): a closing socket takes no more commands and its frames change nothing. */
  open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  /** The session's one gate: every move of state goes through it. */
  moveTo(state: EdgeSessionState): boolean {
    return this.gate.moveTo(state);
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (!this.open()) return; // closing: frames still in flight change nothing
    if (!this.frames.take()) {
      this.log.warn({ instance_id: this.key?.instanceId }, 'edge frame rate exceeded');
      return this.close(CLOSE_CODES.policyViolation, 'frame rate exceeded');
    }
    const message = parseEdgeFrame(data, isBinary);
    if (message) return this.dispatch(message);
    this.badFrames += 1;
    this.reply({ type: 'error', code: 'bad_frame', message: 'the frame is not JSON or not a known message' });
    if (this.badFrames > MAX_BAD_FRAMES) this.close(CLOSE_CODES.policyViolation, 'too many bad frames');
  }

  private dispatch(message: EdgeMessage): void {
    const state = this.gate.state;
    switch (frameAction(state.name, message.type)) {
      case 'register':
        return this.register(message as RegisterFrame);
      case 'handle':
        return handleEdgeFrame(this, message as RegisteredFrame, registeredKey(state)!);
      case 'wait':
        (this.waiting ??= []).push(message);
        return;
      case 'not_registered':
        this.reply({ type: 'error', code: 'not_registered', message: 'the first frame must be register' });
        return this.close(CLOSE_CODES.policyViolation, 'not registered');
      case 'already_registered':
        return this.reply({ type: 'error', code: 'already_registered', message: 'this connection has already registered' });
      case 'drop':
        return;
    }
  }

  /** Starts the registration; frames behind it wait for its outcome, then are handled in arrival order. */
  private register(message: RegisterFrame): void {
    clearTimeout(this.registerTimer);
    this.moveTo({ name: 'registering' });
    const { registrations, now, onRegistered } = this.deps;
    void registerEdge(this, message, { registrations, now, goLive: () => onRegistered(this) })
      .catch((err: unknown) => {
        this.log.error({ err_name: (err as Error).name, instance_id: message.instance_id }, 'edge registration failed');
        this.close(CLOSE_CODES.internalError, 'internal error');
      })
      .finally(() => {
        for (const waited of this.waiting?.splice(0) ?? []) if (this.open()) this.guarded(() => this.dispatch(waited));
      });
  }

  /** Last line of defence: whatever one edge's frame breaks closes that edge, not the process. */
  private guarded(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.log.error({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, instance_id: this.key?.instanceId }, 'edge frame handling failed');
      this.close(CLOSE_CODES.internalError, 'internal error');
    }
  }

  private closed(code: number): void {
    clearTimeout(this.registerTimer);
    this.moveTo({ name: 'closed', key: this.key });
    this.requests.failAll(instanceDisconnected());
    this.log.info({ instance_id: this.key?.instanceId, code }, 'edge disconnected');
    this.deps.onClosed(this);
  }
}
