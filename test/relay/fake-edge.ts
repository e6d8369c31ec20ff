import { WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import { RELAY_PATH } from '../../src/relay-protocol';
import type { EdgeStatus, RelayMessage } from '../../src/relay-protocol';

/** How the fake answers a `command` frame. */
export type CommandBehaviour = 'ok' | 'error' | 'never' | 'close';

export interface FakeEdgeOptions {
  readonly baseUrl: string;
  readonly connectionId: string;
  readonly secret: string;
  readonly instanceId?: string;
  readonly status?: EdgeStatus;
  readonly behaviour?: CommandBehaviour;
  /** The code of the failure behaviour `error` reports (by default one exec does not pass on). */
  readonly errorCode?: string;
  /** false: the fake stops answering pings (a dead peer for the heartbeat). */
  readonly autoPong?: boolean;
  /** false: connect without sending `register`. */
  readonly register?: boolean;
}

export const EDGE_STATUS: EdgeStatus = {
  policy_name: 'rbac',
  policy_digest: `sha256:${'a'.repeat(64)}`,
  directory_revision: 3,
};

export const EDGE_ERROR_MESSAGE = 'policy.cedar:3: unexpected token';
const UNLISTED_ERROR_CODE = 'image_invalid';

/** The basic credential an edge sends at the upgrade (RFC 7617). */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function relayUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${RELAY_PATH}`;
}

/**
 * A scriptable stand-in for an edge authorizer: a real `ws` client that authenticates,
 * registers and answers commands as told. Frames it receives queue up for `next()`.
 */
export class FakeEdge {
  behaviour: CommandBehaviour;
  /** The code the `error` behaviour reports. */
  errorCode: string;
  readonly commands: Extract<RelayMessage, { type: 'command' }>[] = [];
  /** The directory revision a successful command confirms (a test may move it to make each confirmation a change). */
  confirmedRevision = 7;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly queue: RelayMessage[] = [];
  private readonly waiters: ((m: RelayMessage) => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    readonly instanceId: string,
    private readonly status: EdgeStatus,
    behaviour: CommandBehaviour,
    errorCode: string,
  ) {
    this.behaviour = behaviour;
    this.errorCode = errorCode;
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => this.receive(JSON.parse(data.toString()) as RelayMessage));
  }

  /** Connects (and registers unless told not to); resolves once the relay confirmed. */
  static async connect(options: FakeEdgeOptions): Promise<FakeEdge> {
    const ws = new WebSocket(relayUrl(options.baseUrl), {
      headers: { authorization: basic(options.connectionId, options.secret) },
      autoPong: options.autoPong ?? true,
    });
    const edge = new FakeEdge(
      ws,
      options.instanceId ?? `inst-${Math.random().toString(36).slice(2)}`,
      options.status ?? EDGE_STATUS,
      options.behaviour ?? 'ok',
      options.errorCode ?? UNLISTED_ERROR_CODE,
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    if (options.register ?? true) {
      edge.sendJson({ type: 'register', instance_id: edge.instanceId, hostname: 'edge-host', version: '0.1.0', status: edge.status });
      const reply = await edge.next();
      if (reply.type !== 'registered') throw new Error(`register failed: ${JSON.stringify(reply)}`);
    }
    return edge;
  }

  sendJson(value: unknown): void {
    this.ws.send(JSON.stringify(value));
  }

  /** The next frame from the relay (commands are answered automatically but still queued). */
  next(): Promise<RelayMessage> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) {
      this.ws.close();
      await this.closed;
    }
  }

  private receive(message: RelayMessage): void {
    if (message.type === 'command') this.answer(message);
    const waiter = this.waiters.shift();
    if (waiter) waiter(message);
    else this.queue.push(message);
  }

  private answer(command: Extract<RelayMessage, { type: 'command' }>): void {
    this.commands.push(command);
    const request_id = command.request_id;
    switch (this.behaviour) {
      case 'ok':
        this.sendJson({ type: 'command_result', request_id, ok: true, status: { ...this.status, directory_revision: this.confirmedRevision } });
        return;
      case 'error':
        this.sendJson({ type: 'command_result', request_id, ok: false, error: { code: this.errorCode, message: EDGE_ERROR_MESSAGE } });
        return;
      case 'close':
        this.ws.close();
        return;
      case 'never':
        return;
    }
  }
}

/** Attempts an upgrade that the relay should refuse; resolves with the plain HTTP answer. */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: unknown; opened: boolean }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let opened = false;
    ws.once('open', () => {
      opened = true;
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), opened });
      });
    });
    ws.once('error', () => undefined);
  });
}
