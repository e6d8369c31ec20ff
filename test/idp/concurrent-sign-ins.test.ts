// Concurrent sign-ins for one user from one address: a correct password is never counted as
// a failed attempt (issue 18, item 6), while wrong ones still stop exactly at the limit.
// Password checks are held at a gate the test opens, so what runs at once is observed, not timed.
import { createHashingLimiter, TOKEN_PATH, type HashingLimiter, type UserStore } from '../../src/idp';
import { CITADEL, serveIdpVariant, startIdpFixture, type IdpFixture, type IdpVariant } from './idp-fixture';

const PASSWORD = 'V@erySecre#t123!';

/** The real user store behind a gate: checks wait until `release()`; `boom` as a password throws. */
function gatedUsers(users: UserStore) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const counts = { started: 0 };
  const store: UserStore = {
    list: () => users.list(),
    async authenticate(username, password) {
      if (password === 'boom') throw new Error('the user store failed');
      counts.started += 1;
      if (password !== 'no-wait') await gate;
      return users.authenticate(username, password === 'no-wait' ? 'wrong' : password);
    },
  };
  return { store, counts, release };
}

/** Resolves once `done()` holds, checking after each turn of the event loop (no timers). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('concurrent sign-ins for one user from one address', () => {
  let f: IdpFixture;
  let idp: IdpVariant;
  let hashing: HashingLimiter;
  let gated: ReturnType<typeof gatedUsers>;

  async function start(maxFailures: string, limiter = { maxInFlight: 4, maxQueued: 16 }): Promise<void> {
    f = await startIdpFixture({ LOGIN_MAX_FAILURES: maxFailures });
    gated = gatedUsers(f.idp.users);
    hashing = createHashingLimiter(limiter);
    idp = await serveIdpVariant(f, { users: gated.store, hashing });
  }
  afterEach(async () => {
    gated.release();
    await idp.close();
    await f.close();
  });

  const signIn = (username: string, password: string) =>
    fetch(`${idp.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });

  /** Sends `count` sign-ins at once and waits until each is answered or inside the hashing bound. */
  async function burst(count: number, password: string): Promise<Response[]> {
    let answered = 0;
    const answers = Array.from({ length: count }, () => signIn(CITADEL[0].email, password).then((res) => ((answered += 1), res)));
    await until(() => answered + hashing.inFlight() + hashing.queued() === count);
    gated.release();
    return Promise.all(answers);
  }

  it.each(['5', '1'])('10 correct ones at once with LOGIN_MAX_FAILURES=%s: every one 200, none refused as failed', async (max) => {
    await start(max);
    const answers = await burst(10, PASSWORD);
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
  });

  it('beyond the hashing bound, correct ones are shed with 503 and Retry-After, never 429', async () => {
    await start('1', { maxInFlight: 2, maxQueued: 2 });
    const answers = await burst(10, PASSWORD);
    const shed = answers.filter((res) => res.status !== 200);
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(4).fill(200), ...Array(6).fill(503)]);
    for (const res of shed) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'the sign-in service is busy; try again shortly' });
    }
  });

  it('12 wrong ones at once: exactly the limit is checked, the rest are 429', async () => {
    await start('3');
    const answers = await burst(12, 'wrong-password');
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(3).fill(401), ...Array(9).fill(429)]);
    expect(gated.counts.started).toBe(3);
    const locked = answers.find((res) => res.status === 429) as Response;
    expect(locked.headers.get('retry-after')).toBe('300');
    expect(await locked.json()).toEqual({ error: 'too_many_requests', error_description: 'too many failed sign-in attempts; try again in 300 seconds' });
  });

  it('a locked user is answered 429 at once, even while the hashing queue is full', async () => {
    await start('1', { maxInFlight: 1, maxQueued: 0 });
    expect((await signIn(CITADEL[1].email, 'no-wait')).status).toBe(401);
    const holding = signIn(CITADEL[0].email, PASSWORD);
    await until(() => hashing.inFlight() === 1);
    const locked = await signIn(CITADEL[1].email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('300');
    gated.release();
    expect((await holding).status).toBe(200);
  });

  it('a failing user store answers 500 and counts nothing: the next sign-in goes through', async () => {
    await start('1');
    const failed = await signIn(CITADEL[0].email, 'boom');
    expect({ status: failed.status, body: await failed.json() }).toEqual({ status: 500, body: { error: 'server_error', error_description: 'internal error' } });
    gated.release();
    expect((await signIn(CITADEL[0].email, PASSWORD)).status).toBe(200);
  });
});
