import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Ports the kernel hands out itself — to listeners on port 0 and to outgoing connections —
 * come from its ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by
 * default). A port picked inside it can be taken, between the pick and the bind, by any test's
 * server on port 0 or by any fetch's source port; one below it only by another explicit pick.
 */
function pickRange(): { low: number; high: number } {
  let ephemeralLow = 32_768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 0) ephemeralLow = first;
  } catch {
    // Not Linux: the default range's start.
  }
  return { low: ephemeralLow > 12_000 ? 10_000 : 1024, high: ephemeralLow - 1 };
}

function bind(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const closeAll = (servers: readonly Server[]) => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));

/**
 * A free loopback port `p` with `p+1 … p+count-1` free too, chosen at random below the kernel's
 * ephemeral range (see {@link pickRange}) and bound once to prove it free. Another process may
 * still take it before the caller binds it; callers that start servers on it fail loudly then.
 */
export async function freePortRun(count: number): Promise<number> {
  const { low, high } = pickRange();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1 - count));
    const held: Server[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = await bind(port + i);
      if (!server) break;
      held.push(server);
    }
    await closeAll(held);
    if (held.length === count) return port;
  }
  throw new Error(`no ${count} consecutive free ports found from ${low} to ${high}`);
}

/** A free loopback port, as {@link freePortRun} picks one. */
export function freePort(): Promise<number> {
  return freePortRun(1);
}
