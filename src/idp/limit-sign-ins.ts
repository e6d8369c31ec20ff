import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import type { Clock } from './clock';
import { renderPage } from './login-page-html';
import { ROUTES } from './provider';

/** How many sign-ins one client address may start, and how many addresses are counted at once. */
export interface SignInLimit {
  readonly perAddress: number;
  readonly windowSeconds: number;
  readonly maxAddresses: number;
}

/** A person signs in a few times an hour; a script testing the stack a few hundred times. */
export const SIGN_IN_LIMIT: SignInLimit = { perAddress: 300, windowSeconds: 600, maxAddresses: 10_000 };

/** The counting key: the address, or its /64 for IPv6 (one host usually holds a whole /64). */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  if (!address.includes(':') || address.startsWith('::ffff:')) return address.replace(/^::ffff:/, '');
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/**
 * Bounds the sign-ins (`GET /authorize`) one address starts per window: each one stores an
 * open sign-in for 10 minutes, so a junk flood would otherwise grow the provider's storage
 * without limit. Past the bound: a 429 page with `Retry-After`; other addresses are unaffected.
 */
export function limitSignIns(clock: Clock, limit: SignInLimit = SIGN_IN_LIMIT): RequestHandler {
  const windows = new LRUCache<string, { count: number; resetAt: number }>({ max: limit.maxAddresses });
  return function limitSignInsMiddleware(req, res, next) {
    if (req.method !== 'GET' || req.path !== ROUTES.authorization) {
      next();
      return;
    }
    const key = addressKey(req.socket.remoteAddress);
    const now = clock();
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + limit.windowSeconds * 1000 };
      windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= limit.perAddress) {
      next();
      return;
    }
    const retryAfter = Math.ceil((window.resetAt - now) / 1000);
    res
      .status(429)
      .set({ 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' })
      .type('html')
      .send(renderPage('Sign-in busy', `<p role="alert">Too many sign-ins were started from your address. Try again in ${retryAfter} seconds.</p>`));
  };
}
