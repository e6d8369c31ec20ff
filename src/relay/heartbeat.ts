import type { WebSocket } from 'ws';

/** Pings tracked sockets and drops the ones that stay silent. */
export interface Heartbeat {
  /** Starts watching a socket; any pong marks it alive. */
  track(ws: WebSocket): void;
  stop(): void;
}

/**
 * How often the heartbeat wakes: each wake pings one slice of the sockets, so a period's
 * pings (and the pongs they bring back) are spread over the period instead of arriving as one
 * burst — 19,000 pings in one loop stalled the event loop for ~1 s (docs/benchmarks-history.md, "Relay at
 * scale"). docs/reference/limits.md.
 */
export const HEARTBEAT_SLICE_MS = 100;

/**
 * The ws README's "How to detect and close broken connections": every `intervalMs` each
 * socket is pinged (RFC 6455 §5.5.2); one that has not answered the previous ping with a
 * pong (§5.5.3) is terminated, which also catches half-open TCP connections that would
 * never emit `close` on their own. Sockets are dealt round-robin into
 * `intervalMs / HEARTBEAT_SLICE_MS` slices, one slice visited per wake, so each socket is
 * still pinged once per `intervalMs`.
 */
export function startHeartbeat(intervalMs: number, onPong: (ws: WebSocket) => void): Heartbeat {
  const slices = Math.max(1, Math.floor(intervalMs / HEARTBEAT_SLICE_MS));
  const slots = Array.from({ length: slices }, () => new Set<WebSocket>());
  const alive = new WeakSet<WebSocket>();
  let nextSlot = 0;
  let visit = 0;

  const timer = setInterval(function beat() {
    const slot = slots[visit]!;
    visit = (visit + 1) % slices;
    for (const ws of slot) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, intervalMs / slices);

  return {
    track(ws) {
      const slot = slots[nextSlot]!;
      nextSlot = (nextSlot + 1) % slices;
      slot.add(ws);
      alive.add(ws);
      ws.on('pong', () => {
        alive.add(ws);
        onPong(ws);
      });
      ws.once('close', () => slot.delete(ws));
    },
    stop() {
      clearInterval(timer);
      for (const slot of slots) slot.clear();
    },
  };
}
