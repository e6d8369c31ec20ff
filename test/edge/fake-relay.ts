/**
 * A stand-in for the relay's edge socket, attached to the fake control plane's server:
 * it checks the Basic credentials at the upgrade (401 otherwise), records every frame
 * the edge sends, and lets a test send frames or drop the connection.
 */
import { EventEmitter, once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { RELAY_PATH, type EdgeMessage, type RelayMessage } from '../../src/relay-protocol';

export interface FakeRelay {
  /** Every frame received, in order (parsed JSON). */
  readonly frames: EdgeMessage[];
  /** Upgrade attempts, accepted or not. */
  readonly upgrades: number;
  /** Resolves with the next frame matching `type` (already received ones count, once each). */
  nextFrame<T extends EdgeMessage['type']>(type: T): Promise<Extract<EdgeMessage, { type: T }>>;
  /** Marks every frame received so far as consumed: `nextFrame` then waits for new ones. */
  skipReceived(): void;
  /** Resolves when the next edge socket is open. */
  nextConnection(): Promise<WebSocket>;
  send(frame: RelayMessage | Record<string, unknown>): void;
  /** Drops every edge socket abruptly (no closing handshake). */
  dropAll(): void;
  /** When true, upgrades are refused with 401. */
  refuse: boolean;
  close(): Promise<void>;
}

export function createFakeRelay(server: Server, credentials: { connectionId: string; connectionSecret: string }): FakeRelay {
  const wss = new WebSocketServer({ noServer: true });
  const events = new EventEmitter();
  const frames: EdgeMessage[] = [];
  const consumed = new Set<number>();
  const expected = `Basic ${Buffer.from(`${credentials.connectionId}:${credentials.connectionSecret}`).toString('base64')}`;
  const fake = { refuse: false, upgrades: 0 };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    fake.upgrades += 1;
    if (req.url !== RELAY_PATH || fake.refuse || req.headers.authorization !== expected) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm="outpost"\r\nContent-Length: 0\r\n\r\n');
      events.emit('refused');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        frames.push(JSON.parse(data.toString()) as EdgeMessage);
        events.emit('frame');
      });
      events.emit('connection', ws);
    });
  });

  function take(type: string): EdgeMessage | undefined {
    const index = frames.findIndex((f, i) => f.type === type && !consumed.has(i));
    if (index < 0) return undefined;
    consumed.add(index);
    return frames[index];
  }

  return Object.assign(fake, {
    frames,
    async nextFrame(type: string) {
      for (;;) {
        const frame = take(type);
        if (frame) return frame;
        await once(events, 'frame');
      }
    },
    skipReceived() {
      frames.forEach((_f, i) => consumed.add(i));
    },
    async nextConnection() {
      const [ws] = (await once(events, 'connection')) as [WebSocket];
      return ws;
    },
    send(frame: RelayMessage | Record<string, unknown>) {
      for (const ws of wss.clients) ws.send(JSON.stringify(frame));
    },
    dropAll() {
      for (const ws of wss.clients) ws.terminate();
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  }) as FakeRelay;
}
