import { setImmediate as nextTurn } from 'node:timers/promises';

/** Runs `work` in its turn: after every earlier one, in an event-loop turn of its own. */
export type TakeTurns = <T>(work: () => T) => Promise<T>;

/**
 * A line for synchronous work that may take a while (a search page evaluates for up to
 * `SEARCH_LIMITS.timeBudgetMs`): each piece waits for the one before it, then for the next
 * event-loop turn, so requests that arrived meanwhile (evaluations above all) are served between
 * two pieces instead of queueing behind every piece that was asked for at once.
 */
export function createTurns(): TakeTurns {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => T): Promise<T> => {
    const run = last.then(() => nextTurn()).then(work);
    last = run.catch(() => undefined);
    return run;
  };
}
