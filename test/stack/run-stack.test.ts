import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STOPPED_MARKER } from './fixtures/stub-stack';

const fixture = join(__dirname, 'fixtures', 'stub-stack.ts');

/** The launcher under test, with stub components on the given ports (`<port>` or `<port>:crash`). */
function launch(dir: string, specs: string[]) {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', fixture, dir, ...specs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<number[]>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /stack ready (\[[\d,]*\])/.exec(output);
      if (m) resolve(JSON.parse(m[1] as string) as number[]);
    });
    void exited.then(() => reject(new Error(`launcher exited before ready:\n${output}`)));
  });
  ready.catch(() => undefined); // only the tests that wait for readiness care
  return { child, exited, ready, output: () => output };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a condition another process brings about (no event reaches this one). */
async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the fixture's onStopped recorded, or undefined when it never ran. */
function stoppedMarker(dir: string): { exited: boolean[] } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, STOPPED_MARKER), 'utf8')) as { exited: boolean[] };
  } catch {
    return undefined;
  }
}

async function answers(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/`).then(
    (res) => res.ok,
    () => false,
  );
}

const log = (dir: string, name: string) => {
  try {
    return readFileSync(join(dir, `${name}.log`), 'utf8');
  } catch {
    return '';
  }
};

describe('stack launcher process', () => {
  let dir: string;
  const launched: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-stack-'));
  });
  afterEach(() => {
    for (const c of launched.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops every component on SIGTERM and has waited for them when it exits', async () => {
    const stack = launch(dir, [String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    const pids = await stack.ready;
    expect(pids).toHaveLength(2);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(log(dir, 'idp')).toContain('stub stopped by SIGTERM');
    expect(log(dir, 'control-plane')).toContain('stub stopped by SIGTERM');
  });

  it('leaves no component behind when the launcher itself is killed', async () => {
    const stack = launch(dir, [String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    await stack.ready;
    stack.child.kill('SIGKILL');
    await stack.exited;
    await eventually(
      () => log(dir, 'idp').includes('stub stopped by SIGTERM') && log(dir, 'control-plane').includes('stub stopped by SIGTERM'),
      'both components stop',
    );
  });

  it('quotes only this run of a component that fails to start, and stops the ones already started', async () => {
    writeFileSync(join(dir, 'control-plane.log'), 'an earlier run: old trouble\n');
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:crash`]);
    launched.push(stack.child);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('control plane exited during start-up');
    expect(stack.output()).toContain('stub: refusing to start (this run)');
    expect(stack.output()).not.toContain('old trouble');
    expect(stack.output()).not.toContain('Stopping the stack');
    expect(log(dir, 'idp')).toContain('stub stopped by SIGTERM');
  });

  it('names the taken port every time a component meets EADDRINUSE', async () => {
    const squatter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const { port } = squatter.address() as AddressInfo;
    try {
      for (let run = 0; run < 3; run++) {
        const stack = launch(dir, [String(port)]);
        launched.push(stack.child);
        expect(await stack.exited).toBe(1);
        expect(stack.output()).toContain(`port ${port} is in use by another program (set IDP_PORT=… to move the IdP)`);
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
  it('reports an expendable component that dies after start-up and keeps the others running', async () => {
    const [idpPort, nodePort] = [await freePort(), await freePort()];
    const stack = launch(dir, [String(idpPort), `${nodePort}:expendable`]);
    launched.push(stack.child);
    const [idp, node] = (await stack.ready) as [number, number];
    process.kill(node, 'SIGKILL');
    await eventually(() => stack.output().includes('control plane stopped (killed by SIGKILL); the stack goes on without it.'), 'the death is reported');
    // Still there afterwards: the launcher, and the component that did not die.
    expect(await answers(idpPort)).toBe(true);
    expect(stack.child.exitCode).toBeNull();
    expect(isAlive(idp)).toBe(true);
    expect(log(dir, 'idp')).not.toContain('stub stopped by SIGTERM');
    expect(stack.output()).not.toContain('Stopping the stack');
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(log(dir, 'idp')).toContain('stub stopped by SIGTERM');
  });

  it('stops the stack when a component that is not expendable dies after start-up', async () => {
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:expendable`]);
    launched.push(stack.child);
    const [idp, node] = (await stack.ready) as [number, number];
    process.kill(idp, 'SIGKILL');
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('IdP stopped (killed by SIGKILL); see');
    expect(stack.output()).toContain('Stopping the stack.');
    expect(isAlive(node)).toBe(false);
    expect(log(dir, 'control-plane')).toContain('stub stopped by SIGTERM');
  });

  it('runs onStopped once every component has exited, and exits only after it finished', async () => {
    const stack = launch(dir, [String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    await stack.ready;
    expect(stoppedMarker(dir)).toBeUndefined();
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(stoppedMarker(dir)).toEqual({ exited: [true, true] });
  });

  it('runs onStopped after a component that ignores SIGTERM was killed and has exited', async () => {
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:stubborn`]);
    launched.push(stack.child);
    const [, stubborn] = (await stack.ready) as [number, number];
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0); // after the launcher's grace period (8 s)
    expect(log(dir, 'control-plane')).toContain('stub ignores SIGTERM');
    expect(isAlive(stubborn)).toBe(false);
    expect(stoppedMarker(dir)).toEqual({ exited: [true, true] });
  }, 30_000);

  it("gives a component's env to that process only", async () => {
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:mark`, String(await freePort())]);
    launched.push(stack.child);
    await stack.ready;
    expect(log(dir, 'control-plane')).toContain('stub env STUB_MARK=control-plane');
    expect(log(dir, 'idp')).toContain('stub env STUB_MARK=(unset)');
    expect(log(dir, 'edge')).toContain('stub env STUB_MARK=(unset)');
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
  });
});
