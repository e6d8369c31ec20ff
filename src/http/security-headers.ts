import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { contentSecurityPolicy, type CspDirectives } from './content-security-policy';

/** Sets helmet's headers on a response, as helmet itself would for this request. */
export type SetSecurityHeaders = (req: { readonly secure: boolean }, res: ServerResponse) => void;

/** What a middleware did to a response's headers: names removed, then headers set, in order. */
interface HeaderEdits {
  readonly removed: readonly string[];
  readonly set: readonly (readonly [string, string])[];
}

/**
 * Runs `middleware` once against a response that only records what is done to its headers.
 * It must finish at once and without error: a middleware that needs the real request (a CSP
 * nonce) cannot be computed ahead, and saying so at start-up beats a wrong header later.
 */
function recordHeaderEdits(middleware: RequestHandler, secure: boolean): HeaderEdits {
  const set = new Map<string, readonly [string, string]>();
  const removed: string[] = [];
  const res = {
    setHeader(name: string, value: unknown) {
      set.set(name.toLowerCase(), [name, String(value)]);
    },
    removeHeader(name: string) {
      set.delete(name.toLowerCase());
      removed.push(name);
    },
  };
  let finished = false;
  middleware({ secure } as never, res as never, (err?: unknown) => {
    if (err !== undefined) throw new TypeError(`the security headers could not be computed: ${String(err)}`);
    finished = true;
  });
  if (!finished) throw new TypeError('the security headers must be computable once, at start-up');
  return { removed, set: [...set.values()] };
}

/** True when a CSP directive's value is computed per request (a function, e.g. a nonce). */
function perRequestDirective(value: unknown): boolean {
  return typeof value === 'function' || (Array.isArray(value) && value.some((v) => typeof v === 'function'));
}

/** helmet's headers for a request over HTTP and one over HTTPS, recorded once (see {@link securityHeaders}). */
function recordSecurityHeaders(options: Readonly<HelmetOptions>): { overHttp: HeaderEdits; overHttps: HeaderEdits } {
  const { contentSecurityPolicy: csp, ...rest } = options;
  const directives: CspDirectives | undefined = typeof csp === 'object' ? csp.directives : undefined;
  for (const [name, value] of Object.entries(directives ?? {})) {
    if (perRequestDirective(value)) throw new TypeError(`CSP directive ${name} is computed per request; the security headers are computed once`);
  }
  const helmetHeaders = helmet({ ...rest, contentSecurityPolicy: false });
  const cspHeader = csp === false ? undefined : contentSecurityPolicy(directives);
  const edits = (secure: boolean): HeaderEdits => {
    const own = recordHeaderEdits(helmetHeaders, secure);
    const policy = cspHeader ? recordHeaderEdits(cspHeader, secure) : { removed: [], set: [] };
    return { removed: [...own.removed, ...policy.removed], set: [...own.set, ...policy.set] };
  };
  return { overHttp: edits(false), overHttps: edits(true) };
}

/**
 * helmet's security headers, computed once at start-up and set on every response: helmet
 * with `options` (its Content-Security-Policy through {@link contentSecurityPolicy}, so
 * `upgrade-insecure-requests` goes over HTTPS only) is run against a recording response for
 * a request over HTTP and one over HTTPS, and each response gets the recorded set for its
 * kind of request. The headers are byte for byte helmet's; the per-request cost is the
 * `setHeader` calls alone, without helmet's chain of a dozen middlewares
 * (test/apps/rbac-app-headers.test.ts pins the full set).
 *
 * @throws TypeError at creation for a CSP directive computed per request (a function), which
 *   no precomputed header can honour.
 */
export function securityHeaders(options: Readonly<HelmetOptions> = {}): SetSecurityHeaders {
  const { overHttp, overHttps } = recordSecurityHeaders(options);
  return function setSecurityHeaders(req, res) {
    const { removed, set } = req.secure ? overHttps : overHttp;
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
  };
}

/**
 * The same headers as {@link securityHeaders} sets, as one record per kind of request, for a
 * response written with a single `writeHead` (src/fast-path/bare-json-routes.ts, the opt-in bare path): nothing is set
 * before it, so there is nothing to remove.
 */
export function securityHeaderRecords(options: Readonly<HelmetOptions> = {}): { readonly overHttp: Readonly<Record<string, string>>; readonly overHttps: Readonly<Record<string, string>> } {
  const { overHttp, overHttps } = recordSecurityHeaders(options);
  return { overHttp: Object.freeze(Object.fromEntries(overHttp.set)), overHttps: Object.freeze(Object.fromEntries(overHttps.set)) };
}
