/** The public text of the refusal, the same on every service. */
export const MALFORMED_URL_MESSAGE = 'the URL path is not valid percent-encoded UTF-8';

/**
 * A request path whose percent-escapes do not decode as UTF-8 (`%ff`, a cut-off `%e0%80` or
 * `a%2`, an overlong `%C0%AF`): the client's mistake, whichever route it was meant for. It
 * carries no shape: the app's error handler answers 400 in its own (API or OAuth).
 */
export class MalformedUrlError extends Error {
  constructor() {
    super(MALFORMED_URL_MESSAGE);
    this.name = 'MalformedUrlError';
  }
}

/**
 * True for {@link MalformedUrlError} and for the error Express's router throws when it cannot
 * decode a route parameter: a `URIError` it gives `status` 400 (recognised by class and
 * status, never by its text). Any other `URIError` is a bug of ours and stays a 500.
 */
export function isMalformedUrl(err: unknown): boolean {
  return err instanceof MalformedUrlError || (err instanceof URIError && (err as { status?: unknown }).status === 400);
}

/**
 * True for a path that does not decode. `createApp` refuses such a path before any route sees
 * it, so every malformed URL is the same 400 — a parameter route, a static file, an unknown
 * path or a route behind credentials alike — rather than a 404 here, a 401 there and the
 * router's 500 on parameter routes.
 */
export function isMalformedPath(path: string): boolean {
  if (!path.includes('%')) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}
