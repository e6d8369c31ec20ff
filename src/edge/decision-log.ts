import type { AuthorizationRequest, LocalDecision } from '../decision';
import type { DirectoryData } from '../directory';
import { explainDecision } from '../policy';
import { DECISION_RECORD_LIMITS, fitsDecisionRecord, type DecisionRecord } from '../relay-protocol';
import { resolveUserId } from './decision-support';
import type { ActivePolicy } from './edge-state';

/** Records an edge holds for shipping by default; past it the oldest is dropped and counted. */
export const DECISION_QUEUE_CAPACITY = 10_000;

/**
 * The edge's queue of decision records on their way to the control plane (docs/reference/api.md,
 * "Decision records"). `record` runs on every decision, so it only fills a preallocated slot:
 * the record's wire form (reasons with their comment lines, the principal's e-mail) is built
 * later by `take`, off the decision's path. A full queue overwrites its oldest record and
 * counts it in `dropped`; a record taken is never handed out again.
 */
export interface DecisionLog {
  /**
   * Queues one decision: the request as decided, the answer, the HTTP request id, the time
   * spent deciding (ms) and the state it was made from. Never throws.
   */
  record(request: AuthorizationRequest, decision: LocalDecision, requestId: string, latencyMs: number, policy: ActivePolicy | undefined, directory: DirectoryData | undefined): void;
  /** Removes and returns up to `max` of the oldest records, in their wire form; one that does not fit the wire's bounds is counted as dropped. */
  take(max: number): DecisionRecord[];
  readonly size: number;
  /** Records dropped: overwritten while the queue was full, or unfit for the wire. */
  readonly dropped: number;
}

interface Slot {
  time: number;
  request: AuthorizationRequest | undefined;
  decision: LocalDecision | undefined;
  requestId: string;
  latencyMs: number;
  policy: ActivePolicy | undefined;
  directory: DirectoryData | undefined;
}

const emails = new WeakMap<DirectoryData, Map<string, string>>();

function emailOf(directory: DirectoryData, userId: string): string | undefined {
  let index = emails.get(directory);
  if (!index) {
    index = new Map(directory.users.map((u) => [u.id, u.email]));
    emails.set(directory, index);
  }
  return index.get(userId);
}

const cut = (value: string, max: number = DECISION_RECORD_LIMITS.maxText): string => (value.length > max ? value.slice(0, max) : value);
/** Control and format characters become spaces: the wire refuses them, and a record is worth keeping. */
const clean = (value: string, max?: number): string => cut(value.replace(/[\p{Cc}\p{Cf}]/gu, ' '), max);

/** The wire form of a slot; undefined when it cannot be (a slot without a decision, or text the wire refuses). */
function toRecord(slot: Slot, app: string): DecisionRecord | undefined {
  const { request, decision, policy, directory } = slot;
  if (!request || !decision || !policy) return undefined;
  const principalId = directory ? resolveUserId(directory, request.principal) : request.principal;
  const email = directory ? emailOf(directory, principalId) : undefined;
  const reasons = explainDecision(policy.image.files, decision)
    .slice(0, DECISION_RECORD_LIMITS.maxReasons)
    .map((r) => ({ policy: r.policy === null ? null : clean(r.policy), comment: clean(r.comment, DECISION_RECORD_LIMITS.maxReasonComment) }));
  const record: DecisionRecord = {
    time: slot.time,
    request_id: clean(slot.requestId),
    app,
    principal: email === undefined ? { id: clean(principalId) } : { id: clean(principalId), email: clean(email) },
    action: clean(request.action),
    resource: { type: clean(request.resource.type), id: clean(request.resource.id) },
    decision: decision.allowed ? 'allow' : 'deny',
    reasons,
    policy_digest: decision.policyDigest,
    directory_revision: decision.directoryRevision,
    latency_us: Math.round(Math.max(0, slot.latencyMs) * 1000),
  };
  return fitsDecisionRecord(record) ? record : undefined;
}

/** A ring of `capacity` slots for the edge that decides as `app` (`sidecar` or an app's name). */
export function createDecisionLog(app: string, capacity: number = DECISION_QUEUE_CAPACITY, now: () => number = Date.now): DecisionLog {
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error('capacity must be a positive integer');
  const name = clean(app, 64) || 'sidecar';
  const slots: Slot[] = [];
  let head = 0; // oldest
  let size = 0;
  let dropped = 0;

  return {
    record(request, decision, requestId, latencyMs, policy, directory) {
      let at: number;
      if (size < capacity) {
        at = (head + size) % capacity;
        size += 1;
      } else {
        at = head;
        head = (head + 1) % capacity;
        dropped += 1;
      }
      let slot = slots[at];
      if (slot === undefined) {
        slot = { time: 0, request: undefined, decision: undefined, requestId: '', latencyMs: 0, policy: undefined, directory: undefined };
        slots[at] = slot;
      }
      slot.time = now();
      slot.request = request;
      slot.decision = decision;
      slot.requestId = requestId;
      slot.latencyMs = latencyMs;
      slot.policy = policy;
      slot.directory = directory;
    },
    take(max) {
      const out: DecisionRecord[] = [];
      while (size > 0 && out.length < max) {
        const slot = slots[head]!;
        head = (head + 1) % capacity;
        size -= 1;
        const record = toRecord(slot, name);
        // Let go of what the slot held: an old image or directory is not kept alive by the queue.
        slot.request = undefined;
        slot.decision = undefined;
        slot.policy = undefined;
        slot.directory = undefined;
        if (record) out.push(record);
        else dropped += 1;
      }
      return out;
    },
    get size() {
      return size;
    },
    get dropped() {
      return dropped;
    },
  };
}
