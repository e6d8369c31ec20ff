import { createCoalescingJob, createPeriodicJob, SYNC_RETRY } from '../../src/edge';
import { manualTimers } from './manual-timers';

const INTERVAL = 60_000;
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A periodic job whose runs fail while `state.failing` is set; `state.runs` counts them, `state.results` holds what each timer run reported. */
function periodic(random: () => number) {
  const clock = manualTimers();
  const state = { failing: true, runs: 0, results: [] as boolean[] };
  const job = createPeriodicJob({
    job: createCoalescingJob(async () => {
      state.runs += 1;
      if (state.failing) throw new Error('control plane unreachable');
      return state.runs;
    }),
    intervalMs: INTERVAL,
    timers: clock.timers,
    random,
    afterTimerRun: (result) => state.results.push(result.ok),
  });
  return { clock, state, job };
}

/** Lets the run under way end; returns the one delay the job then scheduled. */
async function afterRun(clock: ReturnType<typeof manualTimers>): Promise<number> {
  await settled();
  const pending = clock.pending();
  expect(pending).toHaveLength(1);
  return pending[0]!.ms;
}

describe('createPeriodicJob', () => {
  it('runs at once, then every interval while runs succeed', async () => {
    const { clock, state, job } = periodic(() => 0.5);
    state.failing = false;
    job.start();
    expect(await afterRun(clock)).toBe(INTERVAL);
    clock.fire(INTERVAL);
    expect(await afterRun(clock)).toBe(INTERVAL);
    expect(state.results).toEqual([true, true]);
    job.stop();
  });

  it('tries a failed run again after a doubling, jittered backoff until its ceiling reaches the interval, and back to the interval after a success', async () => {
    const { clock, state, job } = periodic(() => 0.5);
    job.start();
    const delays: number[] = [];
    for (let failure = 0; failure < 9; failure++) {
      const ms = await afterRun(clock);
      delays.push(ms);
      clock.fire(ms);
    }
    // the jitter draws 0.5: half of 1 s, 2 s … 32 s; a ceiling of 64 s is past the interval,
    // so from there the tries are the interval apart, as while the runs succeed
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, INTERVAL, INTERVAL, INTERVAL]);
    state.failing = false;
    clock.fire(await afterRun(clock));
    expect(await afterRun(clock)).toBe(INTERVAL);
    expect(state.results).toEqual([...Array(10).fill(false), true]);
    // a failure after a success starts the backoff over
    state.failing = true;
    clock.fire(INTERVAL);
    expect(await afterRun(clock)).toBe(SYNC_RETRY.baseMs / 2);
    job.stop();
  });

  it('never retries sooner than the floor, whatever the jitter draws', async () => {
    const { clock, job } = periodic(() => 0);
    job.start();
    expect(await afterRun(clock)).toBe(SYNC_RETRY.minMs);
    job.stop();
  });

  it('a failed relay command (runNow) leaves the timer as it was', async () => {
    const { clock, state, job } = periodic(() => 0.5);
    state.failing = false;
    job.start();
    expect(await afterRun(clock)).toBe(INTERVAL);
    state.failing = true;
    await expect(job.runNow()).rejects.toThrow('control plane unreachable');
    expect(clock.pending().map((t) => t.ms)).toEqual([INTERVAL]);
    job.stop();
    expect(clock.pending()).toEqual([]);
  });
});
