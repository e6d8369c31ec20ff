import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../../src/config';
import { stackComponents } from '../../src/stack/components';
import { NotReadyError, waitUntilReady, type RunningComponent } from '../../src/stack/run-component';
import { createProgressWatch, processCpuMs } from '../../src/stack/start-progress';

// The launcher's readiness wait, on a clock and a process the test drives: no time passes
// and no process runs, so nothing here depends on how busy the machine is.

describe('createProgressWatch', () => {
  const bounds = { timeoutMs: 100_000, stallMs: 30_000 };

  it('waits past the stall bound while CPU time advances, until the overall bound', () => {
    const watch = createProgressWatch(bounds, 0, { cpuMs: 0, logBytes: 0 });
    for (let at = 1000; at < 100_000; at += 1000) expect(watch.observe(at, { cpuMs: at / 10, logBytes: 0 })).toBe('waiting');
    expect(watch.observe(100_000, { cpuMs: 10_000, logBytes: 0 })).toBe('timed-out');
    expect(watch.cpuMs).toBe(10_000);
  });

  it('counts a growing log as progress, and gives up once neither moves for the stall bound', () => {
    const watch = createProgressWatch(bounds, 0, { cpuMs: 50, logBytes: 0 });
    expect(watch.observe(20_000, { cpuMs: 50, logBytes: 10 })).toBe('waiting');
    expect(watch.observe(49_999, { cpuMs: 50, logBytes: 10 })).toBe('waiting');
    expect(watch.observe(50_000, { cpuMs: 50, logBytes: 10 })).toBe('stalled');
  });

  it('never calls a process stalled where its CPU cannot be read: only the overall bound applies', () => {
    const watch = createProgressWatch(bounds, 0, { cpuMs: undefined, logBytes: 0 });
    expect(watch.observe(99_000, { cpuMs: undefined, logBytes: 0 })).toBe('waiting');
    expect(watch.observe(100_000, { cpuMs: undefined, logBytes: 0 })).toBe('timed-out');
    expect(watch.cpuMs).toBeUndefined();
  });

  it('reads this process’s CPU from /proc, and nothing for a pid that is gone', () => {
    expect(processCpuMs(process.pid)).toBeGreaterThan(0);
    expect(processCpuMs(undefined)).toBeUndefined();
    expect(processCpuMs(2 ** 22 + 1)).toBeUndefined(); // above Linux's pid_max
  });
});

describe('waitUntilReady', () => {
  const todo = stackComponents(loadConfig({})).find((c) => c.name === 'todo-app')!;
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'outpost-ready-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A component that never exits, its log in `dir`, its clock and CPU driven by the test: each probe is 150 ms later. */
  function starting(options: { answersAfter?: number; cpuPerProbeMs: number; logLine?: (probe: number) => string | undefined }) {
    const logFile = join(dir, 'todo-app.log');
    writeFileSync(logFile, 'a line of an earlier run\n');
    const running: RunningComponent = {
      component: todo,
      child: { pid: 4242 } as ChildProcess,
      logFile,
      logOffset: 25,
      exited: new Promise(() => undefined),
    };
    let clock = 0;
    let probes = 0;
    const wait = (timeoutMs: number) =>
      waitUntilReady(running, '127.0.0.1', timeoutMs, {
        timeoutSetting: 'STACK_START_TIMEOUT',
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
        answers: async () => {
          probes += 1;
          const line = options.logLine?.(probes);
          if (line !== undefined) appendFileSync(logFile, `${line}\n`);
          return options.answersAfter !== undefined && probes > options.answersAfter;
        },
        cpuMs: () => probes * options.cpuPerProbeMs,
        // Its pid is made up: the probe's answer is taken as the component's own.
        holdsPort: () => true,
      });
    return { wait, elapsed: () => clock };
  }

  it('waits for a busy component that logs nothing far beyond the 30 s without progress, and returns once it answers', async () => {
    // 100 s of probes, 20 ms of CPU between each: what an edge compiling Cedar on a loaded machine looks like.
    const c = starting({ answersAfter: 666, cpuPerProbeMs: 20 });
    await expect(c.wait(300_000)).resolves.toBeUndefined();
    expect(c.elapsed()).toBeGreaterThan(99_000);
  });

  it('names a busy component past the overall bound with its CPU and the setting that raises the bound, never "nothing logged"', async () => {
    const c = starting({ cpuPerProbeMs: 20 });
    const err = (await c.wait(60_000).catch((e: unknown) => e)) as NotReadyError;
    expect(err).toBeInstanceOf(NotReadyError);
    expect(err.reason).toBe('timed-out');
    expect(err.message).toMatch(
      /^todo app did not answer http:\/\/127\.0\.0\.1:\d+\/readyz within 60 s \(STACK_START_TIMEOUT raises it\), though still working: 8 s of CPU in this run; nothing logged yet, busy before its first log line \(8 s of CPU in this run\)\n/,
    );
    expect(err.message).not.toContain('(nothing logged)');
    expect(err.message).not.toContain('an earlier run');
  });

  it('gives up on a component that neither uses CPU nor logs for 30 s, quoting what it last said it was doing', async () => {
    // Busy and logging for its first 10 s (66 probes), then nothing.
    const c = starting({ cpuPerProbeMs: 0, logLine: (probe) => (probe <= 66 && probe % 11 === 0 ? `{"msg":"step ${probe / 11}"}` : undefined) });
    const err = (await c.wait(300_000).catch((e: unknown) => e)) as NotReadyError;
    expect(err.reason).toBe('stalled');
    expect(err.message).toContain('todo app did not answer');
    expect(err.message).toContain('it made no progress (no CPU used, nothing logged) for 30 s');
    expect(err.message).toContain('; its last log line: {"msg":"step 6"}\nIts log from this run');
    expect(err.message).toMatch(/\{"msg":"step 1"\}\n[^]*\{"msg":"step 6"\}$/);
    expect(c.elapsed()).toBeLessThan(45_000);
  });
});
