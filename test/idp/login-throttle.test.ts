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

  it('stays within maxEntries, sweeping expired windows before evicting the oldest', () => {
    const clock = fakeClock(0);
    const throttle = createLoginThrottle({ maxFailures: 1, windowSeconds: 10, clock, maxEntries: 3 });
    throttle.recordFailure(['old']);
    clock.advance(11);
    throttle.recordFailure(['a', 'b']);
    throttle.recordFailure(['c']); // full: the expired "old" goes first
    expect(throttle.size()).toBe(3);
    expect(throttle.retryAfter(['a'])).toBe(10);
    throttle.recordFailure(['d']); // full of live windows: the oldest ("a") is evicted
    expect(throttle.size()).toBe(3);
    expect(throttle.retryAfter(['a'])).toBe(0);
    expect(throttle.retryAfter(['b', 'c', 'd'])).toBe(10);
  });

  it('refuses nonsensical options at start-up', () => {
    expect(() => createLoginThrottle({ maxFailures: 0, windowSeconds: 10, clock: Date.now })).toThrow(/invalid/);
  });
});
