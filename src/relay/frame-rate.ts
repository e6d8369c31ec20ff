/**
 * Frames one socket may send: a burst, then a steady rate (a token bucket). An edge sends a
 * few frames a minute; a flood is closed with 1008 instead of occupying the relay.
 */
export const FRAME_RATE = Object.freeze({ burst: 200, perSecond: 50 });

/**
 * A token bucket of {@link FRAME_RATE} on the monotonic clock: `take()` spends one frame's
 * token and answers false once the socket has outrun the bucket; `refund()` gives one back
 * for a frame the relay asked for (a command's result), so only unsolicited frames count.
 */
export function createFrameBucket(now: () => number = () => performance.now()): { take(): boolean; refund(): void } {
  let tokens: number = FRAME_RATE.burst;
  let refilledAt = now();
  return {
    take() {
      const at = now();
      tokens = Math.min(FRAME_RATE.burst, tokens + ((at - refilledAt) / 1000) * FRAME_RATE.perSecond);
      refilledAt = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    refund() {
      tokens = Math.min(FRAME_RATE.burst, tokens + 1);
    },
  };
}
