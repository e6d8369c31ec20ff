// The cost of the per-username limit, as docs/reference/security.md states it: wrong passwords
// spread over a few addresses lock the user out everywhere, the right password from a clean
// address included, until the window ends. Pinned here so the docs and the code cannot drift.
import { createLoginThrottle } from '../../src/idp';
import { createPasswordCheck, throttleLimitFor } from '../../src/idp/check-password';
import { CITADEL, fakeClock, startIdpFixture, type IdpFixture } from './idp-fixture';

const PASSWORD = 'V@erySecre#t123!';

describe('the per-username lock-out', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startIdpFixture();
  });
  afterAll(() => f.close());

  it('20 wrong passwords from 5 addresses lock the user from a clean address too, until the window ends', async () => {
    const { maxLoginFailures, loginFailureWindow } = f.config.idp;
    const clock = fakeClock();
    const throttle = createLoginThrottle({ maxFailures: maxLoginFailures, limitFor: throttleLimitFor(maxLoginFailures), windowSeconds: loginFailureWindow, clock });
    const check = createPasswordCheck({ users: f.idp.users, throttle, hashing: f.idp.hashing });
    const victim = CITADEL[1].email;

    // 4 × LOGIN_MAX_FAILURES wrong guesses, 4 from each of 5 addresses: no address reaches its own limits.
    for (let i = 0; i < 4 * maxLoginFailures; i += 1) {
      expect((await check(victim, 'wrong', `10.0.0.${i % 5}`)).outcome).toBe('invalid');
    }
    const locked = await check(victim, PASSWORD, '192.0.2.7');
    expect(locked).toEqual({ outcome: 'throttled', retryAfter: loginFailureWindow });
    // Another user from the attacker's addresses is not affected.
    expect((await check(CITADEL[2].email, PASSWORD, '10.0.0.1')).outcome).toBe('ok');

    clock.advance(loginFailureWindow);
    expect((await check(victim, PASSWORD, '192.0.2.7')).outcome).toBe('ok');
  });
});
