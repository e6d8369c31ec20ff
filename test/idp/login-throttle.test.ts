import { createLoginThrottle } from '../../src/idp';
import { fakeClock } from './idp-fixture';

describe('createLoginThrottle', () => {
  it('blocks a key after maxFailures within the window and says for how long', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 2, windowSeconds: 10, clock });
    throttle.recordFailure(['u']);
    expect(throttle.retryAfter(['u'])).toBe(0);
    clock.advance(2.5);
    throttle.recordFailure(['u']);
    expect(throttle.retryAfter(['u', 'other'])).toBe(8); // rounded up: 7.5 s left
    clock.advance(7.5);
    expect(throttle.retryAfter(['u'])).toBe(0);
    expect(throttle.size()).toBe(0);
  });

  it('forgets a key on reset', () => {
    const throttle = createLoginThrottle({ maxFailures: 1, windowSeconds: 10, clock: fakeClock(0) });
    throttle.recordFailure(['u', 'a']);
    throttle.reset('u');
    expect(throttle.retryAfter(['u'])).toBe(0);
    expect(throttle.retryAfter(['a'])).toBe(10);
  });

  it('stays within maxEntries, sweeping expired windows, then evicting the fewest failures', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 3, windowSeconds: 10, clock, maxEntries: 3 });
    throttle.recordFailure(['old']);
    clock.advance(11);
    throttle.recordFailure(['a', 'b', 'a']);
    throttle.recordFailure(['c']); // full: the expired "old" goes first
    expect(throttle.size()).toBe(3);
    throttle.recordFailure(['d']); // full of live windows: "b" (1 failure, older than "c") goes, not "a" (2)
    expect(throttle.size()).toBe(3);
    throttle.recordFailure(['a']);
    expect(throttle.retryAfter(['a'])).toBe(10); // still counted: its third failure locks it
    throttle.recordFailure(['b', 'b', 'b']);
    expect(throttle.retryAfter(['b'])).toBe(10); // "b" started afresh after its eviction
  });

  it('keeps a lock through a flood of junk failures from many addresses', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 5, windowSeconds: 300, clock });
    const attempt = (keys: string[]) => {
      if (throttle.retryAfter(keys) === 0) throttle.recordFailure(keys);
    };
    for (let i = 0; i < 5; i += 1) attempt(['user:rick', 'addr:attacker']);
    expect(throttle.retryAfter(['user:rick'])).toBe(300);
    // 1,700 addresses × 5 guesses at fresh usernames: more keys than the 10,000-entry table holds.
    for (let a = 0; a < 1_700; a += 1) {
      for (let i = 0; i < 5; i += 1) attempt([`user:junk-${a}-${i}`, `addr:10.0.${a >> 8}.${a & 255}`]);
    }
    clock.advance(60);
    expect(throttle.size()).toBeLessThanOrEqual(10_000);
    expect(throttle.retryAfter(['user:rick', 'addr:somewhere-new'])).toBe(240);
  });

  it('refuses keys it cannot track while the table is full of active locks, until the soonest ends', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 1, windowSeconds: 10, clock, maxEntries: 2 });
    throttle.recordFailure(['x']);
    clock.advance(4);
    throttle.recordFailure(['y']);
    expect(throttle.retryAfter(['new'])).toBe(6); // "x" ends first
    throttle.recordFailure(['new']); // ignored: no room, and never at a lock's expense
    expect(throttle.size()).toBe(2);
    expect(throttle.retryAfter(['y'])).toBe(10);
    clock.advance(6);
    expect(throttle.retryAfter(['new'])).toBe(0);
    throttle.recordFailure(['new']);
    expect(throttle.retryAfter(['new'])).toBe(10);
  });

  it('holds a key’s remaining failures for attempts under way; only a failed one counts', async () => {
    const throttle = createLoginThrottle({ maxFailures: 2, windowSeconds: 10, clock: fakeClock(0) });
    expect(throttle.begin(['u'])).toEqual({ kind: 'begun' });
    expect(throttle.begin(['u'])).toEqual({ kind: 'begun' });
    expect(throttle.begin(['u'])).toEqual({ kind: 'busy' });
    const settled = throttle.settled(['u']);
    throttle.end(['u'], false); // a correct password: not a failure
    await settled;
    expect(throttle.begin(['u'])).toEqual({ kind: 'begun' });
    throttle.end(['u'], true);
    throttle.end(['u'], true);
    expect(throttle.begin(['u'])).toEqual({ kind: 'locked', retryAfter: 10 });
  });

  it('keeps attempts under way across a reset, so a sign-in does not free extra guesses', () => {
    const throttle = createLoginThrottle({ maxFailures: 2, windowSeconds: 10, clock: fakeClock(0) });
    throttle.begin(['u']);
    throttle.begin(['u']);
    throttle.reset('u');
    expect(throttle.begin(['u'])).toEqual({ kind: 'busy' });
    throttle.end(['u'], false);
    throttle.end(['u'], false);
    throttle.reset('u');
    expect(throttle.size()).toBe(0);
  });

  it('never evicts a key with attempts under way', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 1, windowSeconds: 10, clock, maxEntries: 1 });
    throttle.begin(['u']);
    expect(throttle.begin(['other'])).toEqual({ kind: 'locked', retryAfter: 10 });
    expect(throttle.begin(['u'])).toEqual({ kind: 'busy' });
  });

  it('settles at once when no attempt is under way', async () => {
    const throttle = createLoginThrottle({ maxFailures: 1, windowSeconds: 10, clock: fakeClock(0) });
    await expect(throttle.settled(['nobody'])).resolves.toBeUndefined();
  });

  it('refuses nonsensical options at start-up', () => {
    expect(() => createLoginThrottle({ maxFailures: 0, windowSeconds: 10, clock: Date.now })).toThrow(/invalid/);
  });
});
