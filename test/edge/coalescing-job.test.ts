import { createCoalescingJob } from '../../src/edge';

/** A task whose runs finish only when the test says so. */
function controllable() {
  const runs: { resolve(value: number): void; reject(err: Error): void }[] = [];
  const task = () => new Promise<number>((resolve, reject) => runs.push({ resolve, reject }));
  return { runs, task };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createCoalescingJob', () => {
  it('gives each run its caller\'s deadline, and the follow-up the latest of its callers\' (none from a timer)', async () => {
    const deadlines: (number | undefined)[] = [];
    const { runs, task } = controllable();
    const job = createCoalescingJob((deadline) => {
      deadlines.push(deadline);
      return task();
    });
    const first = job.run(5_000);
    const joined = [job.run(), job.run(9_000), job.run(7_000)];
    runs[0]!.resolve(1);
    await first;
    await tick();
    runs[1]!.resolve(2);
    await Promise.all(joined);
    const timer = job.run();
    runs[2]!.resolve(3);
    await timer;
    expect(deadlines).toEqual([5_000, 9_000, undefined]);
  });

  it('runs at once when idle', async () => {
    const { runs, task } = controllable();
    const job = createCoalescingJob(task);
    const result = job.run();
    expect(job.running).toBe(true);
    expect(runs).toHaveLength(1);
    runs[0]!.resolve(1);
    await expect(result).resolves.toBe(1);
    expect(job.running).toBe(false);
  });

  it('coalesces N requests during a run into exactly one follow-up run, and every waiter gets its result', async () => {
    const { runs, task } = controllable();
    const job = createCoalescingJob(task);
    const first = job.run();
    const waiters = Array.from({ length: 5 }, () => job.run());
    expect(runs).toHaveLength(1);
    runs[0]!.resolve(1);
    await expect(first).resolves.toBe(1);
    await tick();
    expect(runs).toHaveLength(2);
    const late = job.run(); // arrives during the follow-up: a new follow-up, not this one
    runs[1]!.resolve(2);
    await expect(Promise.all(waiters)).resolves.toEqual([2, 2, 2, 2, 2]);
    await tick();
    expect(runs).toHaveLength(3);
    runs[2]!.resolve(3);
    await expect(late).resolves.toBe(3);
    await job.idle();
    expect(runs).toHaveLength(3);
  });

  it('passes a failure to the waiters of that run only, then keeps working', async () => {
    const { runs, task } = controllable();
    const job = createCoalescingJob(task);
    const first = job.run();
    const second = job.run();
    runs[0]!.reject(new Error('control plane down'));
    await expect(first).rejects.toThrow('control plane down');
    await tick();
    runs[1]!.resolve(7);
    await expect(second).resolves.toBe(7);
    const idle = job.idle();
    await expect(idle).resolves.toBeUndefined();
  });

  it('idle() waits for the run and its follow-up', async () => {
    const { runs, task } = controllable();
    const job = createCoalescingJob(task);
    void job.run();
    void job.run();
    let idle = false;
    const done = job.idle().then(() => (idle = true));
    runs[0]!.resolve(1);
    await tick();
    expect(idle).toBe(false);
    runs[1]!.resolve(2);
    await done;
    expect(job.running).toBe(false);
  });
});
