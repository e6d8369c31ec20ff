// Codes and refresh tokens are shared fairly: one user's sign-ins and rotations, however
// many, never push out another user's live grant (the bounds are small here; the IdP's
// defaults are in src/idp/oauth/store-limits.ts).
import { createGrantStore, type CodeRecord, type GrantStore } from '../../src/idp/oauth/grant-store';
import { storeLimits } from '../../src/idp/oauth/store-limits';
import { CITADEL, fakeClock } from './idp-fixture';

const CLIENT = 'outpost-todo';
const grantFor = (user: (typeof CITADEL)[number], clientId = CLIENT): CodeRecord => ({
  clientId,
  user,
  scope: 'openid',
  authTime: 0,
  redirectUri: 'http://localhost:3999/',
  codeChallenge: 'c',
});
const [RICK, MORTY, SUMMER] = CITADEL;

/** The refresh token `store` issued first for `user` (the test fails here when none was). */
function firstToken(store: GrantStore, user: (typeof CITADEL)[number]): string {
  const started = store.startFamily(grantFor(user));
  if (!started) throw new Error('no refresh token issued');
  return started.token;
}

/** Rotates `token` `times` times; returns every token the family had, oldest first. */
function rotateMany(store: GrantStore, token: string, times: number): string[] {
  const tokens = [token];
  for (let i = 0; i < times; i += 1) {
    const rotated = store.rotate(tokens[tokens.length - 1] as string, CLIENT);
    if (!rotated.ok || rotated.next === undefined) throw new Error(`rotation ${i} failed`);
    tokens.push(rotated.next);
  }
  return tokens;
}

describe('grant store', () => {
  const limits = storeLimits({ maxEntries: 4, maxPerUser: 2 });

  it('one user rotating far more often than the table holds leaves another user’s refresh token working', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const rick = firstToken(store, RICK);
    const morty = rotateMany(store, firstToken(store, MORTY), 1_000);
    const rotated = store.rotate(rick, CLIENT);
    expect(rotated).toMatchObject({ ok: true, record: { user: RICK } });
    // Reuse detection still works after a thousand rotations: Morty's first token revokes his family.
    expect(store.rotate(morty[0] as string, CLIENT)).toEqual({ ok: false, replayed: true });
    expect(store.rotate(morty[1_000] as string, CLIENT)).toEqual({ ok: false, replayed: false });
    expect(store.rotate(rotated.next as string, CLIENT).ok).toBe(true);
  });

  it('a spent token of any age revokes its family; an unknown one does not', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const tokens = rotateMany(store, firstToken(store, RICK), 3);
    expect(store.rotate('made-up.token', CLIENT)).toEqual({ ok: false, replayed: false });
    expect(store.rotate('no-dot', CLIENT)).toEqual({ ok: false, replayed: false });
    expect(store.rotate(tokens[3] as string, CLIENT).ok).toBe(true);
    expect(store.rotate(tokens[1] as string, CLIENT)).toEqual({ ok: false, replayed: true });
  });

  it('refuses a refresh token presented by another client without spending or revoking it', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const token = firstToken(store, RICK);
    expect(store.rotate(token, 'outpost-console')).toEqual({ ok: false, replayed: false });
    store.revoke(token, 'outpost-console');
    expect(store.rotate(token, CLIENT).ok).toBe(true);
  });

  it('one user’s many sign-ins replace only that user’s oldest families', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const rick = firstToken(store, RICK);
    const morty = Array.from({ length: 50 }, () => firstToken(store, MORTY));
    expect(store.rotate(rick, CLIENT).ok).toBe(true);
    expect(morty.map((t) => store.rotate(t, CLIENT).ok)).toEqual([...Array(48).fill(false), true, true]);
  });

  it('one user’s flood of codes leaves another user’s code redeemable', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const rick = store.issueCode(grantFor(RICK)) as string;
    const morty = Array.from({ length: 50 }, () => store.issueCode(grantFor(MORTY)));
    expect(store.redeemCode(rick)).toMatchObject({ ok: true, record: { user: RICK } });
    expect(morty.map((code) => store.redeemCode(code as string).ok)).toEqual([...Array(48).fill(false), true, true]);
  });

  it('counts a user at each client apart', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const todo = firstToken(store, RICK);
    for (let i = 0; i < 5; i += 1) store.startFamily(grantFor(RICK, 'outpost-console'));
    expect(store.rotate(todo, CLIENT).ok).toBe(true);
  });

  it('refuses a new code or family when the table is full of other users’ single ones', () => {
    const store = createGrantStore(fakeClock(0), storeLimits({ maxEntries: 2, maxPerUser: 2 }));
    const rick = firstToken(store, RICK);
    const morty = firstToken(store, MORTY);
    expect(store.startFamily(grantFor(SUMMER))).toBeUndefined();
    store.issueCode(grantFor(RICK));
    store.issueCode(grantFor(MORTY));
    expect(store.issueCode(grantFor(SUMMER))).toBeUndefined();
    expect([store.rotate(rick, CLIENT).ok, store.rotate(morty, CLIENT).ok]).toEqual([true, true]);
  });

  it('revokes the family a replayed code issued', () => {
    const store = createGrantStore(fakeClock(0), limits);
    const code = store.issueCode(grantFor(RICK)) as string;
    expect(store.redeemCode(code).ok).toBe(true);
    const started = store.startFamily(grantFor(RICK));
    store.linkCode(code, started?.family as string);
    expect(store.redeemCode(code)).toEqual({ ok: false, replayed: true });
    expect(store.rotate(started?.token as string, CLIENT)).toEqual({ ok: false, replayed: false });
  });
});

describe('store limits', () => {
  it('refuses a bound that is not a positive integer at start-up', () => {
    expect(() => storeLimits({ maxEntries: 0 })).toThrow('invalid IdP store limit maxEntries: 0');
    expect(() => storeLimits({ maxPerUser: 2.5 })).toThrow('invalid IdP store limit maxPerUser: 2.5');
  });
});
