import type { WebSocket } from 'ws';

/** Pings tracked sockets and drops the ones that stay silent. */
export interface Heartbeat {
  /** Starts watching a socket; any pong marks it alive. */
  track(ws: WebSocket): void;
  stop(): void;
}

/**
 * The ws README's "How to detect and close broken connections": every `intervalMs` each
 * socket is pinged (RFC 6455 §5.5.2); one that has not answered the previous ping with a
 * pong (§5.5.3) is terminated, which also catches half-open TCP connections that would
 * never emit `close` on their own.
 */
export function startHeartbeat(intervalMs: number, onPong: (ws: WebSocket) => void): Heartbeat {
  const tracked = new Set<WebSocket>();
  const alive = new WeakSet<WebSocket>();

  const timer = setInterval(function beat() {
    for (const ws of tracked) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, intervalMs);

  return {
    track(ws) {
      tracked.add(ws);
      alive.add(ws);
      ws.on('pong', () => {
        alive.add(ws);
        onPong(ws);
      });
      ws.once('close', () => tracked.delete(ws));
    },
    stop() {
      clearInterval(timer);
      tracked.clear();
    },
  };
}
