import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { compiled } from '../helpers/compiled';
import { runsOf, STOPPED_MARKER } from './fixtures/stub-stack';
import { waitUntil } from '../helpers/wait-for';

/** The launcher with stub components, compiled to plain JavaScript by test/build-once.js. */
const fixture = compiled('test/stack/fixtures/stub-stack.ts');

/** The launcher under test, with stub components on the given ports (`<port>` or `<port>:crash`) and fixture options (`--firstDelayMs=20`). */
function launch(dir: string, specs: string[]) {
  const child = spawn(process.execPath, [fixture, dir, ...specs], {
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
  /** Resolves with the first match of `pattern` in the launcher's output; rejects if it exits first. */
  const said = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(output);
        if (m) resolve(m);
        return m;
      };
      if (check()) return;
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then(() => check() ?? reject(new Error(`launcher exited before saying ${pattern}:\n${output}`)));
    });
  return { child, exited, ready, said, output: () => output };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
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

/**
 * Probes `ports` one after the other until stopped, and records every probe that failed: a
 * sample of "the others keep answering" throughout a test, not only at its end.
 */
const probing: (() => Promise<unknown>)[] = [];
function keepProbing(ports: number[]): { stop: () => Promise<{ probes: number; failures: string[] }> } {
  let running = true;
  let probes = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      for (const port of ports) {
        probes += 1;
        if (!(await answers(port))) failures.push(`port ${port} at ${new Date().toISOString()}`);
      }
      await new Promise((r) => setTimeout(r, 20)); // the sampling rate, not a wait for a state
    }
  })();
  const stop = async () => {
    running = false;
    await loop;
    return { probes, failures };
  };
  probing.push(stop); // a test that fails half-way must not leave its probes running
  return { stop };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  afterEach(async () => {
    await Promise.all(probing.splice(0).map((stop) => stop()));
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
    expect(stack.output()).not.toContain('restarting'); // stopped, not dead
  });

  it('leaves no component behind when the launcher itself is killed', async () => {
    const stack = launch(dir, [String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    await stack.ready;
    stack.child.kill('SIGKILL');
    await stack.exited;
    await waitUntil('both components stop', () => log(dir, 'idp').includes('stub stopped by SIGTERM') && log(dir, 'control-plane').includes('stub stopped by SIGTERM'));
  });

  it('quotes only this run of a component that fails to start, and stops the ones already started', async () => {
    writeFileSync(join(dir, 'control-plane.log'), 'an earlier run: old trouble\n');
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:crash`]);
    launched.push(stack.child);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('control plane exited during start-up');
    expect(stack.output()).toContain('stub: refusing to start (this run)');
    expect(stack.output()).not.toContain('old trouble');
    expect(stack.output()).not.toContain('restarting');
    expect(runsOf(dir, 'control-plane')).toBe(1); // a failure at first start is not retried
    expect(log(dir, 'idp')).toContain('stub stopped by SIGTERM');
  });

  it('runs verify once every component is ready and passes what it found to onReady', async () => {
    const stack = launch(dir, [String(await freePort())]);
    launched.push(stack.child);
    await stack.ready;
    expect(stack.output()).toMatch(/starting IdP … ready\nstub check … done\nstack ready \[\d+\] verified \["stub edge"\]/);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
  });

  it('is not up when verify fails: says why, stops every component and exits 1 without onReady', async () => {
    const stack = launch(dir, ['--failVerify=1', String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('stub check … failed\nstub: not every edge is registered');
    expect(stack.output()).not.toContain('stack ready');
    expect(log(dir, 'idp')).toContain('stub stopped by SIGTERM');
    expect(log(dir, 'control-plane')).toContain('stub stopped by SIGTERM');
    expect(stoppedMarker(dir)).toEqual({ exited: [true, true] }); // stopped and waited for, as on Ctrl+C
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
  it('restarts a component killed after start-up, with a growing wait, while the others answer throughout', async () => {
    const ports = [await freePort(), await freePort(), await freePort()] as const;
    const stack = launch(dir, ports.map(String));
    launched.push(stack.child);
    const [idp, first, edge] = (await stack.ready) as [number, number, number];
    const others = keepProbing([ports[0], ports[2]]);
    const logFile = join(dir, 'control-plane.log');

    process.kill(first, 'SIGKILL');
    await stack.said(new RegExp(escape(`control plane stopped (killed by SIGKILL; log ${logFile}); restarting in 0.25 s (restart 1 of 5 this minute)`)));
    const second = Number((await stack.said(/control plane is back \(restart 1, pid (\d+)\)/))[1]);
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);
    expect(await answers(ports[1])).toBe(true);
    expect(log(dir, 'control-plane')).toContain(`stub run 2 pid ${second}`);

    // A second death soon after waits twice as long.
    process.kill(second, 'SIGKILL');
    await stack.said(/control plane stopped \(killed by SIGKILL; log [^)]+\); restarting in 0\.5 s \(restart 2 of 5 this minute\)/);
    const third = Number((await stack.said(/control plane is back \(restart 2, pid (\d+)\)/))[1]);
    expect(await answers(ports[1])).toBe(true);

    const { probes, failures } = await others.stop();
    expect(failures).toEqual([]);
    expect(probes).toBeGreaterThan(10);
    expect(isAlive(idp) && isAlive(edge)).toBe(true);
    expect(runsOf(dir, 'idp')).toBe(1);
    expect(runsOf(dir, 'edge')).toBe(1);
    expect(stack.output()).not.toContain('Stopping');

    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    for (const pid of [idp, third, edge]) expect(isAlive(pid)).toBe(false);
    expect(log(dir, 'control-plane')).toContain('stub stopped by SIGTERM');
  });

  it('restarts a component that keeps dying within its budget, then leaves it down while the others answer', async () => {
    const ports = [await freePort(), await freePort()] as const;
    const stack = launch(dir, ['--maxRestarts=3', '--firstDelayMs=20', '--maxDelayMs=40', String(ports[0]), `${ports[1]}:flaky`]);
    launched.push(stack.child);
    const [idp, flaky] = (await stack.ready) as [number, number];
    const others = keepProbing([ports[0]]);
    const logFile = join(dir, 'control-plane.log');

    process.kill(flaky, 'SIGKILL');
    await stack.said(/stays down/);
    const lines = stack.output().split('\n').filter((line) => line.startsWith('control plane'));
    expect(lines).toEqual([
      `control plane stopped (killed by SIGKILL; log ${logFile}); restarting in 0.02 s (restart 1 of 3 this minute)`,
      `control plane stopped (exit code 3 before it was ready; log ${logFile}); restarting in 0.04 s (restart 2 of 3 this minute)`,
      `control plane stopped (exit code 3 before it was ready; log ${logFile}); restarting in 0.04 s (restart 3 of 3 this minute)`,
      `control plane stopped (exit code 3 before it was ready) and stays down: 3 restarts in the last minute; see ${logFile}`,
    ]);
    expect(runsOf(dir, 'control-plane')).toBe(4);
    expect(await answers(ports[0])).toBe(true);
    const { failures } = await others.stop();
    expect(failures).toEqual([]);
    expect(stack.child.exitCode).toBeNull();

    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(runsOf(dir, 'control-plane')).toBe(4);
    expect(isAlive(idp)).toBe(false);
    expect(stoppedMarker(dir)).toEqual({ exited: [true, true] });
  });

  it('kills a restart that does not become ready in time, and counts it as a death', async () => {
    const ports = [await freePort(), await freePort()] as const;
    const stack = launch(dir, ['--maxRestarts=1', '--firstDelayMs=20', '--readyTimeoutMs=4000', String(ports[0]), `${ports[1]}:hang`]);
    launched.push(stack.child);
    const [, hang] = (await stack.ready) as [number, number];
    process.kill(hang, 'SIGKILL');
    await stack.said(/control plane stopped \(not ready on \/healthz within 4 s\) and stays down: 1 restart in the last minute; see /);
    const hung = Number(/stub run 2 pid (\d+)/.exec(log(dir, 'control-plane'))?.[1]);
    expect(log(dir, 'control-plane')).toContain('stub hangs before listening');
    expect(isAlive(hung)).toBe(false);
    expect(await answers(ports[0])).toBe(true);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
  });

  it('stops a restarted component still waiting to become ready, and has waited for it when it exits', async () => {
    const stack = launch(dir, [String(await freePort()), `${await freePort()}:hang`]);
    launched.push(stack.child);
    const [, hang] = (await stack.ready) as [number, number];
    process.kill(hang, 'SIGKILL');
    await stack.said(/restarting in 0\.25 s/);
    await waitUntil('the restart runs', () => log(dir, 'control-plane').includes('stub hangs before listening'));
    const restarted = Number(/stub run 2 pid (\d+)/.exec(log(dir, 'control-plane'))?.[1]);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    // Stopped by the launcher, before it exited: not later by watch-parent once the launcher was gone.
    expect(log(dir, 'control-plane').split('stub hangs before listening')[1]).toContain('stub stopped by SIGTERM');
    expect(isAlive(restarted)).toBe(false);
    expect(stack.output()).not.toContain('is back');
  });

  it('starts nothing new when a stop comes during the wait before a restart, and leaves no process', async () => {
    // onStopped outlasts the wait: a launcher that let the wait run out while stopping would start the component again.
    const stack = launch(dir, ['--firstDelayMs=1000', '--stoppedDelayMs=2000', String(await freePort()), String(await freePort())]);
    launched.push(stack.child);
    const [idp, node] = (await stack.ready) as [number, number];
    process.kill(node, 'SIGKILL');
    await stack.said(/control plane stopped \(killed by SIGKILL; log [^)]+\); restarting in 1 s/);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(runsOf(dir, 'control-plane')).toBe(1);
    expect(isAlive(idp)).toBe(false);
    expect(stoppedMarker(dir)).toEqual({ exited: [true, true] });
    expect(stack.output()).not.toContain('is back');
  });

  it('leaves a component down, and the others running, when it cannot even be started again', async () => {
    const ports = [await freePort(), await freePort()] as const;
    const stack = launch(dir, ['--firstDelayMs=20', String(ports[0]), String(ports[1])]);
    launched.push(stack.child);
    const [idp, node] = (await stack.ready) as [number, number];
    // Its log file turns into a folder: the restart cannot open it.
    rmSync(join(dir, 'control-plane.log'));
    mkdirSync(join(dir, 'control-plane.log'));
    process.kill(node, 'SIGKILL');
    await stack.said(/control plane could not be restarted \(EISDIR[^)]*\) and stays down/);
    expect(await answers(ports[0])).toBe(true);
    expect(stack.child.exitCode).toBeNull();
    expect(runsOf(dir, 'control-plane')).toBe(1);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(isAlive(idp)).toBe(false);
  });

  it('stops with exit code 1 once every component is down for good', async () => {
    const stack = launch(dir, ['--maxRestarts=1', '--firstDelayMs=20', `${await freePort()}:flaky`]);
    launched.push(stack.child);
    const [only] = (await stack.ready) as [number];
    process.kill(only, 'SIGKILL');
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toMatch(/IdP stopped \(exit code 3 before it was ready\) and stays down: 1 restart in the last minute; see .*\nEvery component is down; stopping\.\n/);
    expect(stoppedMarker(dir)).toEqual({ exited: [true] });
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

  it('starts a component only once the one it waits for answers', async () => {
    // The IdP's stub never listens: the control plane, which waits for it, must never start.
    const stack = launch(dir, ['--readyTimeoutMs=2000', `${await freePort()}:never`, String(await freePort())]);
    launched.push(stack.child);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('starting IdP … failed\nIdP did not answer');
    expect(runsOf(dir, 'control-plane')).toBe(0);
  });

  it('starts together the components that wait for nothing, and reports them in list order', async () => {
    // The IdP's stub listens only once the control plane's answers: were the control plane
    // started after the IdP is ready, as by default, neither would ever be.
    const stack = launch(dir, ['--readyTimeoutMs=15000', `${await freePort()}:await-peer`, `${await freePort()}:wait-none`]);
    launched.push(stack.child);
    await stack.ready;
    expect(stack.output()).toMatch(/^starting IdP … ready\nstarting control plane … ready\nstub check … done\n/);
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
  });

  it('stops the start at once when a later component fails while an earlier one is still starting', async () => {
    // The IdP's stub never listens; only the control plane's failure, not the 60 s time-out, can end this in time.
    const stack = launch(dir, ['--readyTimeoutMs=60000', `${await freePort()}:never`, `${await freePort()}:crash+wait-none`]);
    launched.push(stack.child);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain('starting IdP … stopped\ncontrol plane exited during start-up');
    expect(stack.output()).toContain('stub: refusing to start (this run)');
    expect(runsOf(dir, 'control-plane')).toBe(1);
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
