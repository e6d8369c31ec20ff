import { createLoginSessions, MAX_PENDING_LOGINS_PER_ADDRESS } from '../../src/idp/oauth/login-sessions';
import type { AuthorizeRequest } from '../../src/idp/oauth/read-authorize-request';

const request = {} as AuthorizeRequest;

describe('open login forms', () => {
  it('a flood of /authorize from one address evicts only that address’s own open forms', () => {
    const sessions = createLoginSessions(() => 1_000_000);
    const victim = sessions.startLogin(request, '10.9.9.9');
    const flood = Array.from({ length: MAX_PENDING_LOGINS_PER_ADDRESS + 5 }, () => sessions.startLogin(request, '127.0.0.66'));
    // The victim's form still posts...
    expect(sessions.takeLogin(victim.id, victim.csrfToken)).toBeDefined();
    // ...and the flooding address kept only its newest forms.
    const kept = flood.filter((f) => sessions.takeLogin(f.id, f.csrfToken) !== undefined);
    expect(kept).toEqual(flood.slice(5));
  });
});
