import { HttpError } from '../http';
import type { CommandName } from '../relay-protocol';
import type { EdgeSession } from './edge-session';

/** An edge a broadcast did not get a confirmation from, and why (exec's error code for the same outcome). */
export interface FailedEdge {
  readonly id: string;
  readonly code: string;
}

/** What sending one command to a group of edges came to. */
export interface SendOutcome {
  readonly confirmed: number;
  readonly failed: FailedEdge[];
}

/** The stable code of a failed send: the HttpError's code (exec's vocabulary), else `server_error`. */
export function failureCode(err: unknown): string {
  return err instanceof HttpError ? err.code : 'server_error';
}

/**
 * Sends `command` to each of the tenant's instances this node holds a socket for, all at
 * once, each waiting at most `timeoutMs`, and resolves once every one has confirmed, failed
 * or timed out. An id without a local session (it moved to another node meanwhile) fails
 * with `instance_not_connected`. Used for this node's share of a broadcast and for the share
 * another node routes here.
 */
export async function sendToLocalEdges(
  instanceIds: readonly string[],
  local: (instanceId: string) => EdgeSession | undefined,
  command: CommandName,
  timeoutMs: number,
): Promise<SendOutcome> {
  const failed: FailedEdge[] = [];
  let confirmed = 0;
  const waits: Promise<void>[] = [];
  for (const id of instanceIds) {
    const session = local(id);
    if (session === undefined) {
      failed.push({ id, code: 'instance_not_connected' });
      continue;
    }
    try {
      waits.push(
        session.send(command, timeoutMs).then(
          () => void (confirmed += 1),
          (err: unknown) => void failed.push({ id, code: failureCode(err) }),
        ),
      );
    } catch (err) {
      // The edge's pending-command cap throws at once (429 too_many_pending).
      failed.push({ id, code: failureCode(err) });
    }
  }
  await Promise.all(waits);
  return { confirmed, failed };
}
