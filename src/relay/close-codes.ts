/** WebSocket close codes the relay uses (RFC 6455 §7.4.1; 4000–4999 are private use). */
export const CLOSE_CODES = {
  goingAway: 1001,
  policyViolation: 1008,
  internalError: 1011,
  /** A newer socket registered the same instance (the edge reconnected). */
  replaced: 4001,
  /** The instance id is bound to another edge connection of the tenant. */
  instanceBound: 4002,
} as const;
