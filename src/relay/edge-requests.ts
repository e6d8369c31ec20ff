import type { EdgeMessage, EdgeStatus, TryDecisionResult } from '../relay-protocol';
import { createPendingCommands, type PendingCommands } from './pending-commands';
import { createPendingSamples, type PendingSamples } from './pending-samples';

/** Tried decisions that may wait on one edge at once; more get 429 `too_many_pending`. */
export const MAX_PENDING_TRIES = 8;

/**
 * What the relay asked one edge and still waits for: commands, decision samples and tried
 * decisions, each keyed by request id. Samples and tries are rare (people at a page ask for
 * them): their maps are made on the first request, not for each of the thousands of connected
 * edges. A class, so its methods live once on the prototype.
 */
export class EdgeRequests {
  private readonly commands: PendingCommands;
  private samples: PendingSamples | undefined;
  private tries: PendingCommands<TryDecisionResult> | undefined;

  constructor(
    private readonly timeoutMs: number,
    maxPendingCommands: number,
  ) {
    this.commands = createPendingCommands({ timeoutMs, max: maxPendingCommands });
  }

  /** Reserves a command (429 past the cap); `timeoutMs` shortens the wait (a broadcast's remaining time). */
  command(timeoutMs?: number): ReturnType<PendingCommands['add']> {
    return this.commands.add(timeoutMs);
  }

  sample(): ReturnType<PendingSamples['add']> {
    this.samples ??= createPendingSamples({ timeoutMs: this.timeoutMs });
    return this.samples.add();
  }

  tryDecision(): ReturnType<PendingCommands<TryDecisionResult>['add']> {
    this.tries ??= createPendingCommands<TryDecisionResult>({ timeoutMs: this.timeoutMs, max: MAX_PENDING_TRIES });
    return this.tries.add();
  }

  /** Whether a command with this id waits for its result. */
  awaitsCommand(requestId: string): boolean {
    return this.commands.has(requestId);
  }

  /** Settles a waiting command with a status (once `result` settles); false when none waits under this id. */
  confirmCommand(requestId: string, result: Promise<EdgeStatus>): boolean {
    return this.commands.resolve(requestId, result);
  }

  /** Takes one sample chunk; false when no sample with its id is awaited. */
  receiveChunk(chunk: Extract<EdgeMessage, { type: 'sample_chunk' }>): boolean {
    return this.samples?.receive(chunk) ?? false;
  }

  /** Settles a waiting tried decision; false when none waits under this id. */
  answerTry(requestId: string, result: TryDecisionResult): boolean {
    return this.tries?.resolve(requestId, result) ?? false;
  }

  /** Fails whichever request waits under this id (a failed sample or try is reported as a failed command is). */
  fail(requestId: string, err: Error): boolean {
    return this.commands.reject(requestId, err) || (this.samples?.reject(requestId, err) ?? false) || (this.tries?.reject(requestId, err) ?? false);
  }

  /** Fails everything waiting, e.g. because the socket closed. */
  failAll(err: Error): void {
    this.commands.rejectAll(err);
    this.samples?.rejectAll(err);
    this.tries?.rejectAll(err);
  }
}
