import { addressOwner, createLoginSessions, type StartedLogin } from '../../src/idp/oauth/login-sessions';
import type { AuthorizeRequest } from '../../src/idp/oauth/read-authorize-request';
import { MAX_PENDING_LOGINS_PER_ADDRESS, storeLimits } from '../../src/idp/oauth/store-limits';
import type { IdpUser } from '../../src/idp/user-store';
import { fakeClock } from './idp-fixture';

const request = {} as AuthorizeRequest;

/** The form a started login opened (the test fails here when none was). */
function opened(started: StartedLogin): { id: string; csrfToken: string } {
  if (started.ok === false) throw new Error(`no form: retry after ${started.retryAfter} s`);
  return started;
}

describe('open login forms', () => {
  it('a flood of /authorize from one address evicts only that address’s own open forms', () => {
    const sessions = createLoginSessions(() => 1_000_000);
    const victim = opened(sessions.startLogin(request, '10.9.9.9'));
    const flood = Array.from({ length: MAX_PENDING_LOGINS_PER_ADDRESS + 5 }, () => opened(sessions.startLogin(request, '127.0.0.66')));
    // The victim's form still posts...
    expect(sessions.takeLogin(victim.id, victim.csrfToken)).toBeDefined();
    // ...and the flooding address kept only its newest forms.
    const kept = flood.filter((f) => sessions.takeLogin(f.id, f.csrfToken) !== undefined);
    expect(kept).toEqual(flood.slice(5));
  });
});

describe('open login forms under a flood from many addresses', () => {
  const limits = storeLimits({ maxEntries: 50, maxFormsPerAddress: 5 });

  it('a flood from many addresses, far beyond the table, leaves a quiet user’s earlier form usable', () => {
    const sessions = createLoginSessions(fakeClock(0), limits);
    const quiet = opened(sessions.startLogin(request, '10.9.9.9'));
    // 500 addresses × 5 forms: fifty times what the table holds.
    for (let a = 0; a < 500; a += 1) {
      for (let i = 0; i < 5; i += 1) sessions.startLogin(request, `10.1.${a >> 8}.${a & 255}`);
    }
    expect(sessions.takeLogin(quiet.id, quiet.csrfToken)).toBeDefined();
  });

  it('refuses a new address’s form while every open form is its address’s only one, until the oldest expires', () => {
    const clock = fakeClock(0);
    const sessions = createLoginSessions(clock, limits);
    const quiet = opened(sessions.startLogin(request, '10.9.9.9'));
    clock.advance(100);
    const answers = Array.from({ length: 60 }, (_, a) => sessions.startLogin(request, `10.1.0.${a}`));
    expect(answers.filter((a) => a.ok)).toHaveLength(49);
    expect(answers[59]).toEqual({ ok: false, retryAfter: 500 }); // the quiet form, 10 minutes from its start
    expect(sessions.takeLogin(quiet.id, quiet.csrfToken)).toBeDefined();
  });

  it('counts an IPv6 /64 as one address', () => {
    const sessions = createLoginSessions(fakeClock(0), limits);
    const forms = Array.from({ length: 8 }, (_, i) => opened(sessions.startLogin(request, `2001:db8:1:2::${i + 1}`)));
    expect(forms.filter((f) => sessions.takeLogin(f.id, f.csrfToken) !== undefined)).toEqual(forms.slice(3));
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('groups %s as %s', (address, owner) => {
    expect(addressOwner(address)).toBe(owner);
  });
});

describe('sessions', () => {
  const user = (id: string): IdpUser => ({ id, email: `${id}@x.test`, name: id });

  it('one user signing in far more often than the table holds leaves another user’s session', () => {
    const sessions = createLoginSessions(fakeClock(0), storeLimits({ maxEntries: 10, maxPerUser: 3 }));
    const beth = sessions.startSession({ user: user('beth'), authTime: 0 });
    const jerry = Array.from({ length: 200 }, () => sessions.startSession({ user: user('jerry'), authTime: 0 }));
    expect(sessions.session(beth)?.user.id).toBe('beth');
    expect(jerry.map((id) => sessions.session(id) !== undefined)).toEqual([...Array(197).fill(false), true, true, true]);
  });

  it('starts no session when the table is full of other users’ single sessions', () => {
    const sessions = createLoginSessions(fakeClock(0), storeLimits({ maxEntries: 2 }));
    sessions.startSession({ user: user('beth'), authTime: 0 });
    sessions.startSession({ user: user('jerry'), authTime: 0 });
    expect(sessions.startSession({ user: user('summer'), authTime: 0 })).toBeUndefined();
  });
});
