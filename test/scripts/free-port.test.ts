import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, freePortRun } from '../../scripts/lib/free-port';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('freePort (scripts/lib/free-port.ts)', () => {
  it("picks below the kernel's ephemeral range, where no port-0 listener or outgoing connection lands", async () => {
    for (let i = 0; i < 20; i += 1) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
  });

  it('hands out a run of consecutive ports, each of which binds', async () => {
    const first = await freePortRun(3);
    expect(first + 2).toBeLessThan(ephemeralLow);
    for (const port of [first, first + 1, first + 2]) expect(await bindable(port)).toBe(true);
  });
});
