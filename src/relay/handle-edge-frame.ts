import type { DecisionRecord, EdgeMessage, RelayMessage } from '../relay-protocol';
import type { EdgeRequests } from './edge-requests';
import type { InstanceKey } from './registration';
import type { RegistrationWrites } from './registration-writes';
import { edgeError } from './relay-errors';

/** What {@link handleEdgeFrame} works with: one registered session's requests, writes and replies. */
export interface EdgeFrameContext {
  readonly requests: EdgeRequests;
  readonly writes: RegistrationWrites;
  /** The session's frame bucket: frames the relay asked for are refunded. */
  readonly frames: { refund(): void };
  reply(message: RelayMessage): void;
  readonly onDecisions: ((key: InstanceKey, records: readonly DecisionRecord[]) => void) | undefined;
}

/** A frame of a registered edge other than `register` (which the session's gate answers). */
export type RegisteredFrame = Exclude<EdgeMessage, { type: 'register' }>;

function unknownRequest(what: string): RelayMessage {
  return { type: 'error', code: 'unknown_request', message: `no ${what} is waiting for this request id` };
}

/** Serves one frame of the registered edge `key` (docs/reference/api.md, "Relay WebSocket"). */
export function handleEdgeFrame(ctx: EdgeFrameContext, message: RegisteredFrame, key: InstanceKey): void {
  switch (message.type) {
    case 'status':
      void ctx.writes.status(key, message.status);
      return;
    case 'sample_chunk':
      if (!ctx.requests.receiveChunk(message)) return ctx.reply(unknownRequest('sample'));
      // Asked for, and bounded by the sample limits, like command results.
      ctx.frames.refund();
      if (message.done) void ctx.writes.status(key, message.status);
      return;
    case 'try_result': {
      const { type: _type, request_id: requestId, ...result } = message;
      if (!ctx.requests.answerTry(requestId, result)) return ctx.reply(unknownRequest('tried decision'));
      ctx.frames.refund();
      return;
    }
    case 'decisions':
      // Unsolicited and counted by the frame bucket like any frame; stored off this handler.
      ctx.onDecisions?.(key, message.records);
      return;
    case 'command_result': {
      let known: boolean;
      if (message.ok) {
        // The exec answers once the status it confirmed is stored: a registration read after
        // the 200 shows it (docs/reference/api.md, beside the drift fields).
        const { status } = message;
        known = ctx.requests.awaitsCommand(message.request_id);
        if (known) ctx.requests.confirmCommand(message.request_id, ctx.writes.status(key, status).then(() => status));
      } else {
        known = ctx.requests.fail(message.request_id, edgeError(message.error.message, message.error.code));
      }
      // A result for a command never sent (or already timed out) changes nothing.
      if (!known) return ctx.reply(unknownRequest('command'));
      // The relay asked for this frame; its pending-command cap already bounds how many come.
      ctx.frames.refund();
      return;
    }
  }
}
