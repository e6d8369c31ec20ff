import { createHashingLimiter, HashingOverloadedError } from '../../src/idp';

/** A task that runs until the test settles it. */
function heldTask<T>(value: T) {
  let release!: () => void;
  let started = false;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async () => {
    started = true;
    await gate;
    return value;
  };
  return { task, release, started: () => started };
}

describe('createHashingLimiter', () => {
  it('runs at most maxInFlight tasks, queues maxQueued in order and refuses the rest at once', async () => {
    const limiter = createHashingLimiter({ maxInFlight: 2, maxQueued: 1 });
    const [a, b, c, d] = [1, 2, 3, 4].map(heldTask);
    const ra = limiter.run(a.task);
    const rb = limiter.run(b.task);
    const rc = limiter.run(c.task);
    await expect(limiter.run(d.task)).rejects.toEqual(new HashingOverloadedError('overloaded'));
    expect(d.started()).toBe(false);
    expect([limiter.inFlight(), limiter.queued(), c.started()]).toEqual([2, 1, false]);

    a.release();
    expect(await ra).toBe(1);
    expect([limiter.inFlight(), limiter.queued(), c.started()]).toEqual([2, 0, true]);
    b.release();
    c.release();
    expect([await rb, await rc]).toEqual([2, 3]);
    expect(limiter.inFlight()).toBe(0);
  });

  it('frees the slot of a task that throws or rejects', async () => {
    const limiter = createHashingLimiter({ maxInFlight: 1, maxQueued: 0 });
    await expect(
      limiter.run(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(limiter.run(() => Promise.reject(new Error('async')))).rejects.toThrow('async');
    expect(await limiter.run(async () => 'ok')).toBe('ok');
    expect(limiter.inFlight()).toBe(0);
  });

  it('on close abandons the queue at once, lets running tasks finish and refuses new ones', async () => {
    const limiter = createHashingLimiter({ maxInFlight: 1, maxQueued: 2 });
    const running = heldTask('done');
    const result = limiter.run(running.task);
    const queued = [limiter.run(async () => 'never'), limiter.run(async () => 'never')];
    limiter.close();
    for (const q of queued) await expect(q).rejects.toEqual(new HashingOverloadedError('closing'));
    await expect(limiter.run(async () => 'late')).rejects.toEqual(new HashingOverloadedError('closing'));
    expect(limiter.queued()).toBe(0);
    running.release();
    expect(await result).toBe('done');
  });

  it('refuses nonsensical options at start-up', () => {
    expect(() => createHashingLimiter({ maxInFlight: 0, maxQueued: 1 })).toThrow(/invalid/);
    expect(() => createHashingLimiter({ maxInFlight: 1, maxQueued: -1 })).toThrow(/invalid/);
  });
});
