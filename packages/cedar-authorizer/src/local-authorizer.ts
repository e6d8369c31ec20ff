import { resolveUserId, type DirectoryData } from './directory-data';
import type { CompiledPolicy } from './compiled-policy';
import { localType } from './describe-schema';
import { AuthorizerUnavailableError, type AuthorizationDecision, type AuthorizationRequest, type Authorizer } from '@outpost/express-authz';
import { buildDirectoryEntities, type DirectoryEntities } from './build-entities';
import { LRUCache } from 'lru-cache';

/** A local decision with the facts a decision log wants. */
export interface LocalDecision extends AuthorizationDecision {
  /** Ids (`<file>:<line>`) of the determining policies: the permits of an allow, the forbids of a deny (empty when nothing permits). */
  readonly reasons: readonly string[];
  readonly policyDigest: string;
  readonly directoryRevision: number;
  /** True when the answer came from the decision cache. */
  readonly cached: boolean;
}

/** The in-process Cedar authorizer. `authorize` resolves to a {@link LocalDecision}. */
export interface LocalAuthorizer extends Authorizer {
  readonly kind: 'local';
  authorize(request: AuthorizationRequest): Promise<LocalDecision>;
  /** The same decision, synchronously: a batch decided in one step sees one policy and directory. */
  decideNow(request: AuthorizationRequest): LocalDecision;
  /** {@link decideNow}, as the permission step asks an in-process authorizer (`Authorizer.authorizeNow`). */
  authorizeNow(request: AuthorizationRequest): LocalDecision;
  /** Cache counters, for metrics and benchmarks. */
  stats(): { readonly hits: number; readonly misses: number; readonly size: number };
}

export interface LocalAuthorizerOptions {
  /** The active compiled policy; read once per decision, so swapping it is atomic. */
  readonly policy: () => CompiledPolicy | undefined;
  /** The active directory snapshot; read once per decision. */
  readonly directory: () => DirectoryData | undefined;
  /** Decision cache entries (LRU); 0 disables the cache. Default 10,000. */
  readonly cacheSize?: number;
  /**
   * Sees every decision made (not the failures), with the request's cache key, which
   * identifies the request exactly: an edge records a sample of its decisions this way.
   * Runs on the hot path, so it must be cheap and must not throw.
   */
  readonly onDecision?: (request: AuthorizationRequest, key: string, decision: LocalDecision) => void;
}

type Cached = Omit<LocalDecision, 'policyPath' | 'cached'>;

function outcome(allowed: boolean, reasons: readonly string[], policy: CompiledPolicy, directory: DirectoryData): Cached {
  return { allowed, reasons, policyDigest: policy.digest, directoryRevision: directory.revision };
}

/**
 * Everything about the request that affects the answer, unambiguously encoded (each part
 * length-prefixed, attributes in key order with their type). The policy digest and the
 * directory revision are not in the key: the cache holds one (policy, directory) pair's
 * answers and is cleared when either is swapped. `withId` false leaves the resource's id
 * out, for a policy that never reads it ({@link CompiledPolicy.readsResource}); its
 * properties stay in, so a property of the wrong type is still refused (400) every time.
 * `context` is the context as Cedar gets it ({@link CompiledPolicy.contextKey}); without it,
 * the context as sent, which identifies the request exactly.
 */
function cacheKey(request: AuthorizationRequest, withId = true, context?: string): string {
  const { principal, action, resource } = request;
  let key = `${principal.length}:${principal}${action.length}:${action}${resource.type.length}:${resource.type}`;
  key += withId ? `${resource.id.length}:${resource.id}` : '*';
  const attributes = resource.attributes;
  if (attributes) {
    for (const name of Object.keys(attributes).sort()) {
      const value = attributes[name];
      const text = String(value);
      key += `|${name.length}:${name}${typeof value}${text.length}:${text}`;
    }
  }
  // Last, after length-prefixed parts: a context that differs in what Cedar is given is another question.
  if (context !== undefined) return context === '' ? key : `${key}#${context}`;
  if (!isEmpty(request.context)) key += `#${JSON.stringify(request.context)}`;
  return key;
}

function isEmpty(context: AuthorizationRequest['context']): boolean {
  for (const _name in context) return false;
  return true;
}

function withPath(decision: Cached, policyPath: string, cached: boolean): LocalDecision {
  const { allowed, reasons, policyDigest, directoryRevision } = decision;
  return { allowed, policyPath, reasons, policyDigest, directoryRevision, cached };
}

/**
 * Creates the `local` authorizer: Cedar in-process over a compiled policy image and a
 * directory snapshot. It fails closed: no policy or directory, or a Cedar failure,
 * throws {@link AuthorizerUnavailableError} (503); a principal missing from the directory
 * is denied without evaluating; a policy that errors during evaluation turns an allow
 * into a deny (the erroring policy might have been a `forbid`). Decisions are cached for
 * the current policy and directory; a swap of either empties the cache.
 */
export function createLocalAuthorizer(options: LocalAuthorizerOptions): LocalAuthorizer {
  const capacity = options.cacheSize ?? 10_000;
  if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError('cache capacity must be a non-negative integer');
  // isaacs' lru-cache: a hit only moves pointers (BENCHMARKS.md, bench:apps); 0 caches nothing.
  const cache = capacity === 0 ? undefined : new LRUCache<string, Cached>({ max: capacity });
  let hits = 0;
  let misses = 0;
  // Entities shaped for one (policy, directory) pair, rebuilt when either is swapped.
  let prepared: { policy: CompiledPolicy; directory: DirectoryData; entities: DirectoryEntities | undefined } | undefined;

  /** Called on every decision: a new policy or directory empties the cache (its answers were for the old pair). */
  function snapshot(policy: CompiledPolicy, directory: DirectoryData): NonNullable<typeof prepared> {
    if (prepared?.policy !== policy || prepared.directory !== directory) {
      cache?.clear();
      prepared = { policy, directory, entities: undefined };
    }
    return prepared;
  }

  function entitiesFor(state: NonNullable<typeof prepared>): DirectoryEntities {
    state.entities ??= buildDirectoryEntities(state.directory, state.policy.schema);
    return state.entities;
  }

  const onDecision = options.onDecision;
  /** Hands a decision to `onDecision`, when there is one, with the request's exact key (its resource id and its context as sent always in), and returns it. */
  function made(request: AuthorizationRequest, key: string, exact: boolean, decision: LocalDecision): LocalDecision {
    if (onDecision !== undefined) onDecision(request, exact ? key : cacheKey(request), decision);
    return decision;
  }

  function decide(request: AuthorizationRequest): LocalDecision {
    const policy = options.policy();
    const directory = options.directory();
    if (!policy) throw new AuthorizerUnavailableError('no policy image is loaded');
    if (!directory) throw new AuthorizerUnavailableError('no directory is loaded');
    const { resource } = request;
    const state = snapshot(policy, directory);
    // A policy that never reads the resource beyond its type gets one answer per type, and
    // context attributes no action declares never make a new question.
    const context = policy.contextKey(request.action, request.context);
    const exact = policy.readsResource && context === '' && isEmpty(request.context);
    const key = cacheKey(request, policy.readsResource, context);
    const hit = cache?.get(key);
    if (hit) {
      hits++;
      return made(request, key, exact, withPath(hit, request.policyPath, true));
    }
    misses++;
    const entities = entitiesFor(state);
    // The principal and a user resource may be named by any of the user's identities.
    const principal = resolveUserId(directory, request.principal);
    const slice = entities.principalSlice(principal);
    if (!slice) return made(request, key, exact, withPath(outcome(false, [], policy, directory), request.policyPath, false));
    const type = localType(policy.schema.namespace, resource.type);
    const id = type === entities.userType ? resolveUserId(directory, resource.id) : resource.id;
    const target = { ...resource, type, id };
    // Built before Cedar is asked: a property of the wrong type is refused (400), not evaluated.
    const related = entities.resourceEntities(target, principal);
    let answer;
    try {
      answer = policy.isAuthorized({
        principal: entities.ref(entities.userType, principal),
        action: request.action,
        resource: entities.ref(type, id),
        ...(request.context ? { context: request.context } : {}),
        entities: slice.concat(related),
      });
    } catch (err) {
      throw new AuthorizerUnavailableError(`policy ${policy.name} could not be evaluated: ${(err as Error).message}`);
    }
    // A policy that failed to evaluate might have been a forbid: any error turns allow into deny.
    const allowed = answer.allowed && answer.errors.length === 0;
    // The determining policies: the permits of an allow, the forbids of a deny; none for an allow an error turned into a deny.
    const decision = outcome(allowed, answer.allowed && !allowed ? [] : answer.reasons, policy, directory);
    cache?.set(key, decision);
    return made(request, key, exact, withPath(decision, request.policyPath, false));
  }

  return {
    kind: 'local',
    // Evaluation is synchronous; the promise keeps the shape shared with `edge`.
    authorize: async (request) => decide(request),
    decideNow: decide,
    authorizeNow: decide,
    stats: () => ({ hits, misses, size: cache?.size ?? 0 }),
    async close() {
      cache?.clear();
      prepared = undefined;
    },
  };
}
