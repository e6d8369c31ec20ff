import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { basicCredential, decodeBasicPair } from '../http';
import type { Logger } from '../observability';
import { RELAY_PATH } from '../relay-protocol';
import type { EdgeConnection } from './relay-store';

/** The challenge sent with a 401 at the upgrade (RFC 7235 §4.1, RFC 7617 §2). */
export const RELAY_CHALLENGE = 'Basic realm="outpost-relay"';

/** Dependencies of {@link createUpgradeHandler}. */
export interface UpgradeHandlerDeps {
  readonly wss: WebSocketServer;
  readonly verifyConnection: (connectionId: string, secret: string) => Promise<EdgeConnection | undefined>;
  /** Whether the connection may open one more socket (a per-connection cap). */
  readonly admit: (connection: EdgeConnection) => boolean;
  readonly logger: Logger;
  readonly onConnection: (ws: WebSocket, connection: EdgeConnection) => void;
}

/**
 * Answers a refused upgrade with a plain HTTP response and drops the socket, so no
 * WebSocket is ever opened for an unauthenticated peer.
 */
function refuse(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ code, message });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://relay.invalid').pathname;
  } catch {
    return '';
  }
}

/**
 * The `upgrade` listener for the control plane's HTTP server: only {@link RELAY_PATH} is
 * served, and only after the connection credentials check out — the ws README's "Client
 * authentication" pattern (authenticate before `handleUpgrade`).
 */
export function createUpgradeHandler(deps: UpgradeHandlerDeps) {
  // One listener for every socket, defined out here: a closure made inside handleUpgrade would
  // share its scope with the callbacks that use `req` and `head`, and so keep the upgrade
  // request and its buffer alive for as long as the edge stays connected.
  const onSocketError = (err: Error) => deps.logger.debug({ err: err.message }, 'relay upgrade socket error');
  return function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A peer resetting mid-handshake must not crash the process.
    socket.on('error', onSocketError);
    if (pathOf(req) !== RELAY_PATH) {
      refuse(socket, 404, 'not_found', 'no WebSocket endpoint at this path');
      return;
    }
    // RFC 7617: Basic base64(connection_id ":" connection_secret).
    const credential = basicCredential(req.headers.authorization);
    const pair = credential === undefined ? undefined : decodeBasicPair(credential);
    if (pair === undefined) {
      admitVerified(req, socket, head, undefined);
      return;
    }
    deps.verifyConnection(pair.user, pair.password).then(
      (connection) => admitVerified(req, socket, head, connection),
      (err: unknown) => {
        // The store failed (locked, unreachable): the edge retries, as after any refused upgrade.
        const code = (err as { code?: unknown }).code;
        deps.logger.error({ err_code: typeof code === 'string' ? code : (err as Error).name }, 'relay upgrade refused: storage unavailable');
        refuse(socket, 503, 'storage_unavailable', 'storage is busy or unavailable; retry shortly', { 'Retry-After': '1' });
      },
    );
  };

  function admitVerified(req: IncomingMessage, socket: Duplex, head: Buffer, connection: EdgeConnection | undefined): void {
    if (socket.destroyed) return; // the peer gave up while the credentials were checked
    if (!connection) {
      deps.logger.info({ remote: req.socket.remoteAddress }, 'relay upgrade refused: bad connection credentials');
      refuse(socket, 401, 'unauthorized', 'missing or invalid connection credentials', { 'WWW-Authenticate': RELAY_CHALLENGE });
      return;
    }
    if (!deps.admit(connection)) {
      deps.logger.warn({ connection_id: connection.connectionId }, 'relay upgrade refused: too many sockets for one connection');
      refuse(socket, 429, 'too_many_connections', 'this edge connection has too many open sockets; close one first');
      return;
    }
    deps.wss.handleUpgrade(req, socket, head, (ws) => deps.onConnection(ws, connection));
  }
}
