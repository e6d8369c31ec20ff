import { batchedDestination, LOG_BUFFER_FLUSH_BYTES, LOG_BUFFER_MAX_BYTES, type ScheduleFlush, type WriteFd } from '../../src/observability/batched-destination';

/** A writer that records what reached the fd; `answer` decides each call's outcome. */
function recorder(answer: (data: Buffer) => number | Error = (d) => d.length) {
  const written: string[] = [];
  const calls: number[] = [];
  const write: WriteFd = (_fd, data) => {
    calls.push(data.length);
    const outcome = answer(data);
    if (outcome instanceof Error) throw outcome;
    written.push(data.subarray(0, outcome).toString());
    return outcome;
  };
  return { write, written, calls };
}

/** A scheduler the test runs by hand: no timers, no sleeps. */
function manualTimer() {
  const pending: (() => void)[] = [];
  const schedule: ScheduleFlush = (flush) => {
    pending.push(flush);
  };
  return { schedule, pending, fire: () => pending.splice(0).forEach((f) => f()) };
}

const line = (i: number, size = 100) => `${JSON.stringify({ i, pad: 'x'.repeat(size) })}\n`;

function busyError(): Error {
  return Object.assign(new Error('resource temporarily unavailable'), { code: 'EAGAIN' });
}

describe('batchedDestination', () => {
  it('writes nothing below a batch, then everything in one write once a batch waits', () => {
    const out = recorder();
    const timer = manualTimer();
    const dest = batchedDestination(1, out.write, timer.schedule);
    let n = 0;
    for (let total = 0; total + Buffer.byteLength(line(n)) < LOG_BUFFER_FLUSH_BYTES; n += 1) {
      total += Buffer.byteLength(line(n));
      dest.write(line(n));
    }
    expect(out.calls).toEqual([]);
    dest.write(line(n));
    n += 1;
    expect(out.calls).toHaveLength(1);
    expect(out.written.join('')).toBe(Array.from({ length: n }, (_v, i) => line(i)).join(''));
  });

  it('writes a line that waits alone when the timer fires (one timer while lines wait)', () => {
    const out = recorder();
    const timer = manualTimer();
    const dest = batchedDestination(1, out.write, timer.schedule);
    dest.write(line(0));
    dest.write(line(1));
    expect(timer.pending).toHaveLength(1);
    expect(out.written).toEqual([]);
    timer.fire();
    expect(out.written.join('')).toBe(line(0) + line(1));
  });

  it('flushSync writes what waits; an idle flush writes nothing', () => {
    const out = recorder();
    const dest = batchedDestination(1, out.write, manualTimer().schedule);
    dest.flushSync();
    expect(out.calls).toEqual([]);
    dest.write(line(7));
    dest.flushSync();
    expect(out.written).toEqual([line(7)]);
  });

  it('keeps the rest of a partial write and writes it first, in order', () => {
    let first = true;
    const out = recorder((d) => (first ? ((first = false), 10) : d.length));
    const dest = batchedDestination(1, out.write, manualTimer().schedule);
    dest.write(line(0));
    dest.write(line(1));
    dest.flushSync();
    expect(out.written.join('')).toBe(line(0) + line(1));
    expect(out.calls).toHaveLength(2);
  });

  it('a busy reader (EAGAIN) keeps the bytes for the timer, not a retry per line, then writes them in order', () => {
    let busy = true;
    const out = recorder((d) => (busy ? busyError() : d.length));
    const timer = manualTimer();
    const dest = batchedDestination(1, out.write, timer.schedule);
    const big = line(0, LOG_BUFFER_FLUSH_BYTES);
    dest.write(big);
    expect(out.calls).toHaveLength(1);
    dest.write(line(1, LOG_BUFFER_FLUSH_BYTES));
    dest.write(line(2));
    expect(out.calls).toHaveLength(1);
    busy = false;
    timer.fire();
    expect(out.written.join('')).toBe(big + line(1, LOG_BUFFER_FLUSH_BYTES) + line(2));
    expect(dest.dropped).toBe(0);
  });

  it('drops and counts lines beyond the bound while the reader does not read, never holding more', () => {
    const out = recorder(() => busyError());
    const dest = batchedDestination(1, out.write, manualTimer().schedule);
    const size = 64 * 1024;
    const kept = Math.floor(LOG_BUFFER_MAX_BYTES / Buffer.byteLength(line(0, size)));
    for (let i = 0; i < kept + 3; i += 1) dest.write(line(i, size));
    expect(dest.dropped).toBe(3);
  });

  it('drops a batch on any other write error instead of throwing into the request', () => {
    const out = recorder(() => Object.assign(new Error('bad file descriptor'), { code: 'EBADF' }));
    const timer = manualTimer();
    const dest = batchedDestination(1, out.write, timer.schedule);
    expect(() => dest.write(line(0, LOG_BUFFER_FLUSH_BYTES))).not.toThrow();
    expect(() => dest.flushSync()).not.toThrow();
    expect(out.calls).toHaveLength(1);
  });
});
