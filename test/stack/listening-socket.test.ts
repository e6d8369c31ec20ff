// Readiness is the answer of the process the launcher started, not of whatever holds the port:
// with another server on it, a child that dies of EADDRINUSE was announced as ready (and, by the
// supervisor, as "back"). Real processes and sockets: /proc tells which process holds the port.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { stackComponents } from '../../src/stack/components';
import { holdsListeningSocket } from '../../src/stack/listening-socket';
import { NotReadyError, waitUntilReady, type RunningComponent } from '../../src/stack/run-component';

let squatter: Server;
let port: number;
let dir: string;
beforeAll(async () => {
  // Another process's server, as far as the child is concerned: it answers 200 on every path.
  squatter = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  port = (squatter.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), 'outpost-port-'));
});
afterAll(async () => {
  await new Promise((resolve) => squatter.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('holdsListeningSocket', () => {
  it('is true for the process listening on the port and false for another one', async () => {
    expect(holdsListeningSocket(process.pid, port)).toBe(true);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      expect(holdsListeningSocket(other.pid, port)).toBe(false);
    } finally {
      other.kill();
    }
  });

  it('is false for a process that has exited: a child that died while its port was probed holds nothing', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve)); // exited and reaped: its /proc entry is gone
    expect(holdsListeningSocket(gone.pid, port)).toBe(false);
  });
});

describe('waitUntilReady with another process on the port', () => {
  it('does not take the other process’s 200 for the child’s: the child dies of EADDRINUSE and the wait says so', async () => {
    const component = { ...stackComponents(loadConfig({})).find((c) => c.name === 'edge')!, port };
    const logFile = join(dir, 'edge.log');
    const log = openSync(logFile, 'a');
    // The child tries the port, fails as a component would, logs the error and exits, a moment later.
    const script = `require('node:net').createServer().listen(${port}, '127.0.0.1').on('error', (e) => { console.error(e.code); setTimeout(() => process.exit(1), 300); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', log, log] });
    const running: RunningComponent = { component, child, logFile, logOffset: 0, exited: new Promise((resolve) => child.once('exit', resolve)) };
    const outcome = await waitUntilReady(running, '127.0.0.1', 60_000).then(
      () => 'ready',
      (err: unknown) => err,
    );
    expect(outcome).toBeInstanceOf(NotReadyError);
    expect(outcome).toMatchObject({ reason: 'exited' });
    expect((outcome as Error).message).toMatch(/EADDRINUSE/);
  });

  it('does not take a 200 that came back after the child died during the probe for the child’s', async () => {
    const component = { ...stackComponents(loadConfig({})).find((c) => c.name === 'edge')!, port };
    const logFile = join(dir, 'edge-gone.log');
    const child = spawn(process.execPath, ['-e', 'process.exit(1)'], { stdio: ['ignore', openSync(logFile, 'a'), 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const running: RunningComponent = { component, child, logFile, logOffset: 0, exited };
    // The other process's 200, answered only once the child has exited and been reaped.
    const answers = async () => {
      await exited;
      return true;
    };
    const outcome = await waitUntilReady(running, '127.0.0.1', 60_000, { answers }).then(
      () => 'ready',
      (err: unknown) => err,
    );
    expect(outcome).toMatchObject({ reason: 'exited' });
  });
});
