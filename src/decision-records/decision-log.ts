import type { AuthorizationRequest } from '@outpost/express-authz';
import { resolveUserId, type DirectoryData } from '../directory';
import { explainDecision, type LocalDecision } from '@outpost/cedar-authorizer';
import { DECISION_RECORD_LIMITS, fitsDecisionRecord, type DecisionRecord } from '../relay-protocol';
import type { ActivePolicy } from '../edge';

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

/**
 * One queued decision: only the strings, numbers and shared objects its record needs, never the
 * request or the decision object. Under load the ring is full and holds each slot for a second
 * or more, so whatever a slot keeps outlives V8's young generation and is copied by every
 * scavenge on its way out. Measured at the sidecar under `npm run bench:peer -- --only sidecar`
 * (two runs each way): a scavenge took 1.21–1.35 ms when slots held the request and decision
 * objects, 1.15–1.18 ms as they are now, 0.87 ms with no records at all.
 */
interface Slot {
  time: number;
  requestId: string;
  principal: string;
  action: string;
  resourceType: string;
  resourceId: string;
  allowed: boolean;
  /** The decision's determining policy ids: the decision cache's own array, shared. */
  reasons: readonly string[];
  policyDigest: string;
  directoryRevision: number;
  latencyMs: number;
  /** Empty when the slot holds no decision. */
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
  const { policy, directory } = slot;
  if (!policy) return undefined;
  const principalId = directory ? resolveUserId(directory, slot.principal) : slot.principal;
  const email = directory ? emailOf(directory, principalId) : undefined;
  const reasons = explainDecision(policy.image.files, slot)
    .slice(0, DECISION_RECORD_LIMITS.maxReasons)
    .map((r) => ({ policy: r.policy === null ? null : clean(r.policy), comment: clean(r.comment, DECISION_RECORD_LIMITS.maxReasonComment) }));
  const record: DecisionRecord = {
    time: slot.time,
    request_id: clean(slot.requestId),
    app,
    principal: email === undefined ? { id: clean(principalId) } : { id: clean(principalId), email: clean(email) },
    action: clean(slot.action),
    resource: { type: clean(slot.resourceType), id: clean(slot.resourceId) },
    decision: slot.allowed ? 'allow' : 'deny',
    reasons,
    policy_digest: slot.policyDigest,
    directory_revision: slot.directoryRevision,
    latency_us: Math.round(Math.max(0, slot.latencyMs) * 1000),
  };
  return fitsDecisionRecord(record) ? record : undefined;
}

const NO_REASONS: readonly string[] = Object.freeze([]);

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
        slot = {
          time: 0,
          requestId: '',
          principal: '',
          action: '',
          resourceType: '',
          resourceId: '',
          allowed: false,
          reasons: NO_REASONS,
          policyDigest: '',
          directoryRevision: 0,
          latencyMs: 0,
          policy: undefined,
          directory: undefined,
        };
        slots[at] = slot;
      }
      slot.time = now();
      slot.requestId = requestId;
      slot.principal = request.principal;
      slot.action = request.action;
      slot.resourceType = request.resource.type;
      slot.resourceId = request.resource.id;
      slot.allowed = decision.allowed;
      slot.reasons = decision.reasons;
      slot.policyDigest = decision.policyDigest;
      slot.directoryRevision = decision.directoryRevision;
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
        slot.reasons = NO_REASONS;
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
