import type { AuthorizationRequest } from '@outpost/express-authz';
import type { LocalDecision } from '@outpost/cedar-authorizer';
import { DECISION_SAMPLE_LIMITS, sampledDecisionSchema, type SampledDecision } from '../relay-protocol';

/**
 * The edge's sample of recent decisions, for a dry run of a candidate image against real
 * traffic (docs/reference/api.md, "Dry run"): the last {@link DECISION_SAMPLE_LIMITS.maxEntries}
 * distinct requests, each with the latest decision made for it.
 */
export interface DecisionSample {
  /** Records one decision; `key` identifies the request exactly (the decision cache's key). */
  record(request: AuthorizationRequest, key: string, decision: LocalDecision): void;
  /** The recorded requests, most recently added first, in their wire shape; one outside its bounds is left out. */
  entries(): SampledDecision[];
  readonly size: number;
}

interface Slot {
  key: string;
  request: AuthorizationRequest;
  allowed: boolean;
  policyDigest: string;
  directoryRevision: number;
}

function toEntry(slot: Slot): SampledDecision {
  const { principal, action, resource } = slot.request;
  return {
    principal,
    action,
    resource: resource.attributes === undefined ? { type: resource.type, id: resource.id } : { type: resource.type, id: resource.id, attributes: { ...resource.attributes } },
    decision: slot.allowed ? 'allow' : 'deny',
    policy_digest: slot.policyDigest,
    directory_revision: slot.directoryRevision,
  };
}

/**
 * A ring of `capacity` slots indexed by request key. A request seen again updates its slot
 * in place; a new one takes the oldest slot once the ring is full, so a request decided
 * often is back in the sample at its next decision. After the ring fills, recording
 * allocates nothing but the index entry of a new request: it runs on every decision.
 * The request object is kept as the caller built it: it holds a directory id, never a token.
 */
export function createDecisionSample(capacity: number = DECISION_SAMPLE_LIMITS.maxEntries): DecisionSample {
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error('capacity must be a positive integer');
  const slots: Slot[] = [];
  const index = new Map<string, number>();
  let oldest = 0;

  return {
    record(request, key, decision) {
      const at = index.get(key);
      let slot: Slot;
      if (at !== undefined) {
        slot = slots[at]!;
      } else if (slots.length < capacity) {
        index.set(key, slots.length);
        slots.push({ key, request, allowed: decision.allowed, policyDigest: decision.policyDigest, directoryRevision: decision.directoryRevision });
        return;
      } else {
        slot = slots[oldest]!;
        index.delete(slot.key);
        index.set(key, oldest);
        slot.key = key;
        oldest = (oldest + 1) % capacity;
      }
      slot.request = request;
      slot.allowed = decision.allowed;
      slot.policyDigest = decision.policyDigest;
      slot.directoryRevision = decision.directoryRevision;
    },
    entries() {
      const newestFirst: SampledDecision[] = [];
      for (let i = 1; i <= slots.length; i++) {
        const entry = toEntry(slots[(oldest - i + slots.length) % slots.length]!);
        if (sampledDecisionSchema.safeParse(entry).success) newestFirst.push(entry);
      }
      return newestFirst;
    },
    get size() {
      return slots.length;
    },
  };
}
