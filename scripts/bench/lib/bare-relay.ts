// Bench child: the floor under exec — an HTTP server that forwards each POST to a WebSocket
// client and answers once the client has answered (HTTP → ws → HTTP), with nothing else: no
// credentials, no store, no schema, no log. It speaks the relay's frames (`register` →
// `registered`, `command` → `command_result`), so the same fake-edge child connects to it.
import { createServer, type Server } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { once } from 'node:events';
import { baseUrl, close } from '../../../src/http';
import { RELAY_PATH } from '../../../src/relay-protocol';
import { serveParent } from './child-endpoint';

const ANSWER = JSON.stringify({ result: {} });
const sockets = new Map<string, WebSocket>();
const waiting = new Map<number, () => void>();
let nextRequest = 1;
let server: Server | undefined;

function serve(): Server {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      const ws = sockets.get(id);
      if (!ws) {
        res.writeHead(404).end();
        return;
      }
      const requestId = nextRequest++;
      waiting.set(requestId, () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(ANSWER) });
        res.end(ANSWER);
      });
      ws.send(JSON.stringify({ type: 'command', request_id: String(requestId), command: 'discovery' }));
    });
  });
  http.on('upgrade', (req, socket, head) => {
    if (req.url !== RELAY_PATH) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; instance_id?: string; request_id?: string };
        if (message.type === 'register' && message.instance_id) {
          sockets.set(message.instance_id, ws);
          ws.send(JSON.stringify({ type: 'registered', instance_id: message.instance_id }));
        } else if (message.type === 'command_result') {
          const requestId = Number(message.request_id);
          waiting.get(requestId)?.();
          waiting.delete(requestId);
        }
      });
    });
  });
  return http;
}

serveParent(
  {
    async start() {
      server = serve().listen(0, '127.0.0.1');
      await once(server, 'listening');
      return { url: baseUrl(server) };
    },
  },
  async () => {
    for (const ws of sockets.values()) ws.terminate();
    if (server) await close(server);
  },
);
