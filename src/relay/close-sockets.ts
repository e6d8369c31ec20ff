import type { WebSocketServer } from 'ws';

/** How long a socket gets to answer the closing handshake before it is cut. */
const CLOSE_WAIT_MS = 1000;

/**
 * Closes every socket of `wss` with `code` and waits until all are closed; a peer that does
 * not answer the closing handshake within a second is terminated, so shutdown never hangs.
 */
export async function closeAllSockets(wss: WebSocketServer, code: number, reason: string): Promise<void> {
  const closed = [...wss.clients].map(
    (ws) =>
      new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) return resolve();
        const timer = setTimeout(() => ws.terminate(), CLOSE_WAIT_MS);
        ws.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        ws.close(code, reason);
      }),
  );
  await Promise.all(closed);
  await new Promise<void>((resolve) => wss.close(() => resolve()));
}
