import type { Server } from 'node:http';
import { baseUrl, close, listen } from '../../src/http';
import { createHashingLimiter, createIdpApp, TOKEN_PATH, type HashingLimiter, type UserStore } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { CITADEL, startIdpFixture, type IdpFixture } from './idp-fixture';

/**
 * The fixture's real user store, with password checks counted and held until the test
 * releases them, so "how many run at once" is observed, not timed.
 */
function heldUsers(users: UserStore) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const counts = { running: 0, peak: 0, started: 0 };
  const store: UserStore = {
    list: () => users.list(),
    async authenticate(username, password) {
      counts.running += 1;
      counts.started += 1;
      counts.peak = Math.max(counts.peak, counts.running);
      try {
        await gate;
        return await users.authenticate(username, password);
      } finally {
        counts.running -= 1;
      }
    },
  };
  return { store, counts, release };
}

/**
 * Resolves once `done()` holds, checking after each turn of the event loop (no timers). Fails at
 * once, with the answer, if one of `held` (requests that cannot finish yet) is answered first:
 * otherwise a request refused before it reaches the bound would leave this waiting until the
 * test times out, saying nothing.
 */
async function until(done: () => boolean, held: Promise<Response>[] = []): Promise<void> {
  let early: Response | undefined;
  for (const answer of held) answer.then((res) => void (early ??= res), () => undefined);
  while (!done()) {
    if (early) throw new Error(`a held request was answered ${early.status}: ${await early.clone().text()}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('token endpoint under a flood of sign-ins', () => {
  let fixture: IdpFixture;
  let server: Server;
  let hashing: HashingLimiter;
  let held: ReturnType<typeof heldUsers>;

  beforeEach(async () => {
    fixture = await startIdpFixture({ LOGIN_MAX_FAILURES: '1000' });
    held = heldUsers(fixture.idp.users);
    hashing = createHashingLimiter({ maxInFlight: 2, maxQueued: 2 });
    const { config, idp, clock } = fixture;
    const app = createIdpApp({
      options: config.idp,
      users: held.store,
      keys: idp.keys,
      hashing,
      adapter: idp.adapter,
      machineClient: idp.machineClient,
      logger: silentLogger(),
      clock,
    });
    server = await listen(app, 0, '127.0.0.1');
  });
  afterEach(async () => {
    held.release();
    if (server.listening) await close(server);
    await fixture.close();
  });

  const signIn = (password: string) =>
    fetch(`${baseUrl(server)}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: CITADEL[0].email, password }),
    });

  it('sheds sign-ins beyond the bound with 503 and Retry-After while the bound holds', async () => {
    const answers = Array.from({ length: 12 }, (_, i) => signIn(`junk-${i}`));
    // Nothing can finish while the checks are held: the 8 answers that do arrive were shed.
    const shed = await firstAnswers(answers, 8);
    expect(shed).toHaveLength(8);
    for (const res of shed) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'the sign-in service is busy; try again shortly',
      });
    }
    expect([held.counts.running, held.counts.peak, hashing.queued()]).toEqual([2, 2, 2]);

    held.release();
    const statuses = (await Promise.all(answers)).map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(4).fill(401), ...Array(8).fill(503)]);
    expect([held.counts.peak, held.counts.started]).toEqual([2, 4]);
  });

  it('bounds the form-encoded password grant with the same queue: one bound for every sign-in surface', async () => {
    const form = (password: string) =>
      fetch(`${baseUrl(server)}${TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        // The provider identifies every client: the demo client sends its client_id (it has no secret).
        body: new URLSearchParams({ grant_type: 'password', client_id: fixture.config.idp.clientId, username: CITADEL[0].email, password }).toString(),
      });
    // Two JSON sign-ins and two form sign-ins fill the bound (2 running, 2 waiting)...
    const filling = [signIn('junk-a'), signIn('junk-b'), form('junk-c'), form('junk-d')];
    await until(() => held.counts.running === 2 && hashing.queued() === 2, filling);
    // ...so a fifth, on the form grant, is shed at once.
    const shed = await form('junk-e');
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.headers.get('cache-control')).toBe('no-store');
    expect(await shed.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'the sign-in service is busy; try again shortly' });
    held.release();
    // The four that were let in are checked and refused, each in its own surface's words.
    const answers = await Promise.all(filling);
    expect(await Promise.all(answers.map(async (res) => [res.status, ((await res.json()) as { error: string }).error]))).toEqual([
      [401, 'invalid_grant'],
      [401, 'invalid_grant'],
      [400, 'invalid_grant'],
      [400, 'invalid_grant'],
    ]);
    expect([held.counts.peak, held.counts.started]).toEqual([2, 4]);
  });

  it('abandons queued sign-ins on close, so the server stops without waiting for them', async () => {
    const answers = Array.from({ length: 4 }, (_, i) => signIn(`junk-${i}`));
    await until(() => held.counts.running === 2 && hashing.queued() === 2, answers);
    hashing.close();
    const closed = close(server);
    // The queued two are answered while the running two are still held.
    const early = await firstAnswers(answers, 2);
    for (const res of early) expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
    expect(held.counts.started).toBe(2);
    held.release();
    await closed;
    expect((await Promise.all(answers)).map((res) => res.status).sort()).toEqual([401, 401, 503, 503]);
  });
});

/** The first `count` answers to arrive, in arrival order. */
function firstAnswers(answers: Promise<Response>[], count: number): Promise<Response[]> {
  return new Promise((resolve, reject) => {
    const arrived: Response[] = [];
    for (const answer of answers) {
      answer.then((res) => {
        arrived.push(res);
        if (arrived.length === count) resolve(arrived);
      }, reject);
    }
  });
}
