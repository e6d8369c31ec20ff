/** Milliseconds since the epoch. Injected so that tests can move time without sleeping. */
export type Clock = () => number;

/** The real wall clock. */
export const systemClock: Clock = () => Date.now();
