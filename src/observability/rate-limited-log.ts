import { types } from 'node:util';
import type { Logger } from './logger';

/** A kind of failure is logged at most once in this window; later ones in it are only counted. */
export const FAILURE_LOG_WINDOW_MS = 60_000;
/** Distinct kinds remembered at once; a new kind beyond them is logged and counted as {@link OTHER_KIND}. */
export const FAILURE_LOG_MAX_KINDS = 100;
/** The kind every failure shares once {@link FAILURE_LOG_MAX_KINDS} kinds are being remembered. */
export const OTHER_KIND = 'other';

/** Longest name {@link thrownName} returns: a name is part of a kind, and kinds are kept. */
const MAX_NAME_LENGTH = 64;

/**
 * Logs failures, each kind at most once a minute. The first failure of a kind is logged in
 * full; the same kind again within {@link FAILURE_LOG_WINDOW_MS} is only counted, and the
 * next line of that kind says how many were (`suppressed`). Every line names its `kind`.
 */
export interface RateLimitedLog {
  /**
   * Logs `fields` and `msg` at `level`, or counts them when `kind` was logged less than a
   * window ago. Never throws, even when the logger does: it serves error paths.
   */
  write(level: 'warn' | 'error', kind: string, fields: Readonly<Record<string, unknown>>, msg: string): void;
}

export interface RateLimitedLogOptions {
  /** Milliseconds since some epoch; `Date.now` unless a test steps it. */
  readonly now?: () => number;
  readonly windowMs?: number;
  readonly maxKinds?: number;
}

interface Window {
  /** When this kind last wrote a line. */
  started: number;
  /** How many of this kind were counted, not logged, since. */
  suppressed: number;
}

/**
 * The name a failure's kind is built from: an Error's `name` (its class, as a rule), the
 * type of anything else thrown (`string`, `object`, `undefined`), never its text — the text
 * can be long, unique per request, or hold what a log must not.
 */
export function thrownName(thrown: unknown): string {
  if (thrown === null) return 'null';
  // `isNativeError` also knows an Error from another realm (a `vm` context), where `instanceof` does not.
  if (!(thrown instanceof Error) && !types.isNativeError(thrown)) return typeof thrown;
  try {
    const name = thrown.name;
    return typeof name === 'string' && name !== '' ? name.slice(0, MAX_NAME_LENGTH) : 'Error';
  } catch {
    // A `name` getter that throws is one more way a failure must not make a second one.
    return 'Error';
  }
}

/**
 * Creates a {@link RateLimitedLog} over `logger`. A flood of one failure (a broken
 * authorizer answering thousands of requests a second) costs one line a minute, not one a
 * request; the kinds it remembers are bounded, so varied junk cannot grow memory.
 */
export function createRateLimitedLog(logger: Logger, options: RateLimitedLogOptions = {}): RateLimitedLog {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? FAILURE_LOG_WINDOW_MS;
  const maxKinds = options.maxKinds ?? FAILURE_LOG_MAX_KINDS;
  if (!(windowMs > 0) || !Number.isInteger(maxKinds) || maxKinds < 1) throw new TypeError('rate-limited log: windowMs must be > 0 and maxKinds a positive integer');
  const windows = new Map<string, Window>();
  const other: Window = { started: -Infinity, suppressed: 0 };

  /** Makes room by forgetting kinds whose window ended with nothing counted: forgetting them loses nothing. */
  function sweep(at: number): void {
    for (const [kind, w] of windows) if (at - w.started >= windowMs && w.suppressed === 0) windows.delete(kind);
  }

  function windowFor(kind: string, at: number): { kind: string; window: Window } {
    let window = windows.get(kind);
    if (window) return { kind, window };
    if (windows.size >= maxKinds) sweep(at);
    if (windows.size >= maxKinds) return { kind: OTHER_KIND, window: other };
    window = { started: -Infinity, suppressed: 0 };
    windows.set(kind, window);
    return { kind, window };
  }

  return {
    write(level, givenKind, fields, msg) {
      try {
        const at = now();
        const { kind, window } = windowFor(givenKind, at);
        if (at - window.started < windowMs) {
          window.suppressed += 1;
          return;
        }
        const suppressed = window.suppressed;
        window.started = at;
        window.suppressed = 0;
        logger[level]({ ...fields, kind, suppressed }, msg);
      } catch {
        // A log that cannot be written must not turn a failure's answer into a crash.
      }
    },
  };
}
