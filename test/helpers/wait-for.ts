/**
 * The tests' one way to wait for a state another part brings about when no event tells this
 * one: poll, bounded. The bound only turns a state that never comes into a failure naming it;
 * it is never what a test asserts (no wall-clock expectations).
 */

/**
 * Polls `probe` every `intervalMs` until it returns a value, for at most `timeoutMs`; a probe
 * that throws (a server still down, say) counts as "not yet".
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** {@link waitFor} for a condition: resolves once `check` is true. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000, intervalMs = 20): Promise<void> {
  await waitFor(what, async () => ((await check()) ? true : undefined), timeoutMs, intervalMs);
}
