import { DEFAULT_RESTART_POLICY, restartBudget, restartPolicy, windowText, type RestartPolicy } from '../../src/stack/restart-policy';

const policy: RestartPolicy = { maxRestarts: 3, windowMs: 10_000, firstDelayMs: 100, maxDelayMs: 350, healthyAfterMs: 5_000 };

describe('restartBudget', () => {
  it('has the defaults docs/reference/stack.md promises: 5 a minute, 0.25 s doubling to 5 s, reset after 30 s up', () => {
    expect(DEFAULT_RESTART_POLICY).toEqual({ maxRestarts: 5, windowMs: 60_000, firstDelayMs: 250, maxDelayMs: 5_000, healthyAfterMs: 30_000 });
    const budget = restartBudget(DEFAULT_RESTART_POLICY);
    const delays = [0, 1, 2, 3, 4].map((i) => budget.afterDeath(i * 1000, 0));
    expect(delays.map((p) => (p.action === 'restart' ? p.delayMs : p.action))).toEqual([250, 500, 1000, 2000, 4000]);
    expect(budget.afterDeath(5000, 0)).toEqual({ action: 'stay-down', restarts: 5 });
    expect(windowText(DEFAULT_RESTART_POLICY)).toBe('minute');
  });

  it('doubles the wait up to its cap and numbers each restart in the window', () => {
    const budget = restartBudget(policy);
    expect(budget.afterDeath(0, 0)).toEqual({ action: 'restart', delayMs: 100, restart: 1 });
    expect(budget.afterDeath(1000, 0)).toEqual({ action: 'restart', delayMs: 200, restart: 2 });
    expect(budget.afterDeath(2000, 0)).toEqual({ action: 'restart', delayMs: 350, restart: 3 });
    expect(budget.afterDeath(3000, 0)).toEqual({ action: 'stay-down', restarts: 3 });
  });

  it('allows restarts again once the earlier ones have left the rolling window', () => {
    const budget = restartBudget(policy);
    budget.afterDeath(0, 0); // restart at 100
    budget.afterDeath(1000, 0); // at 1200
    budget.afterDeath(2000, 0); // at 2350
    expect(budget.afterDeath(10_099, 0)).toEqual({ action: 'stay-down', restarts: 3 }); // 100 is still inside (99, 10 099]
    expect(budget.afterDeath(10_100, 0)).toMatchObject({ action: 'restart', restart: 3 });
    expect(budget.afterDeath(10_200, 0)).toEqual({ action: 'stay-down', restarts: 3 });
  });

  it('never lets a window hold more restarts than allowed, counting a restart when it happens', () => {
    // Deaths at the edge of the window: each planned restart time is what is counted.
    const budget = restartBudget({ ...policy, maxRestarts: 2, firstDelayMs: 1000, maxDelayMs: 1000 });
    const restarts: number[] = [];
    for (let now = 0; now < 60_000; now += 500) {
      const plan = budget.afterDeath(now, 0);
      if (plan.action === 'restart') restarts.push(now + plan.delayMs);
    }
    for (const at of restarts) expect(restarts.filter((t) => t > at - policy.windowMs && t <= at).length).toBeLessThanOrEqual(2);
    expect(restarts.length).toBeGreaterThan(2);
  });

  it('starts the wait again from the first delay after a run that lasted', () => {
    const budget = restartBudget({ ...policy, maxRestarts: 10 });
    budget.afterDeath(0, 0);
    budget.afterDeath(1000, 0);
    expect(budget.afterDeath(2000, 4_999)).toMatchObject({ delayMs: 350 });
    expect(budget.afterDeath(9000, 5_000)).toMatchObject({ delayMs: 100 });
    expect(budget.afterDeath(9500, 0)).toMatchObject({ delayMs: 200 });
  });

  it('refuses a policy that could not be kept, and fills in the defaults of one given in part', () => {
    expect(() => restartPolicy({ windowMs: 0 })).toThrow('invalid restart policy');
    expect(() => restartPolicy({ firstDelayMs: 6_000 })).toThrow('invalid restart policy'); // over the 5 s cap
    expect(() => restartPolicy({ maxRestarts: -1 })).toThrow('invalid restart policy');
    expect(() => restartPolicy({ maxRestarts: Number.NaN })).toThrow('invalid restart policy');
    expect(restartPolicy({ maxRestarts: 2 })).toEqual({ ...DEFAULT_RESTART_POLICY, maxRestarts: 2 });
    expect(windowText(policy)).toBe('10 s');
  });
});
