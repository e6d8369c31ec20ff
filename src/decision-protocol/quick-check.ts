import { MAX_EVALUATIONS, type EvaluationRequest, type EvaluationsRequest } from './authzen';
import { ENTITY_TYPE_PATTERN, MAX_ENTITY_TYPE_LENGTH, isEntityTypePart } from './entity-type';
import type { IsRequest } from './is-request';
import { POLICY_PATH_PATTERN } from '@outpost/cedar-authorizer';

// Hand checks of the decision bodies, for the sidecar's hot path. The zod schemas stay the
// schema of record (the OpenAPI document and every error message come from them): a quick
// check accepts only bodies it can see at a glance are valid and returns exactly what the
// schema's parse would (unknown keys stripped, the short identity types expanded); for
// anything else it answers `undefined` and the caller parses with zod. So it can make a
// decision cheaper, never different (test/decision-protocol/quick-check.test.ts compares
// both on generated bodies).

type Json = Record<string, unknown>;

const ACTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const RESOURCE_PROPERTY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Only `allowed` keys, none of them `__proto__` (zod's records treat it apart; leave it to zod). */
function keysWithin(value: Json, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

const text = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;

function isEntityType(value: unknown): value is string {
  return text(value, 0, MAX_ENTITY_TYPE_LENGTH) && ENTITY_TYPE_PATTERN.test(value) && value.split('::').every(isEntityTypePart);
}

/** A copy of a record whose keys are at most `maxKey` long (its values as they are), or undefined. */
function record(value: unknown, maxKey: number): Json | undefined {
  if (!isObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const copy: Json = {};
  for (const key in value) {
    if (key.length > maxKey || key === '__proto__') return undefined;
    copy[key] = value[key];
  }
  return copy;
}

/** A flat value of a resource property or `is` attribute: a string of at most 512, a finite number, a boolean. */
const flatValue = (value: unknown): value is string | number | boolean =>
  typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || text(value, 0, 512);

function freshness(body: Json, out: { min_directory_revision?: number; min_policy_digest?: string }): boolean {
  const revision = body.min_directory_revision;
  if (revision !== undefined) {
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return false;
    out.min_directory_revision = revision;
  }
  const digest = body.min_policy_digest;
  if (digest !== undefined) {
    if (typeof digest !== 'string' || !DIGEST.test(digest)) return false;
    out.min_policy_digest = digest;
  }
  return true;
}

const SUBJECT_KEYS = new Set(['type', 'id', 'properties']);
const ACTION_KEYS = new Set(['name', 'properties']);
const RESOURCE_KEYS = new Set(['type', 'id', 'properties']);

function subject(value: unknown): EvaluationRequest['subject'] | undefined {
  if (!isObject(value) || !keysWithin(value, SUBJECT_KEYS) || !text(value.type, 1, 64) || !text(value.id, 1, 256)) return undefined;
  if (value.properties === undefined) return { type: value.type, id: value.id };
  const properties = record(value.properties, 64);
  return properties && { type: value.type, id: value.id, properties };
}

function action(value: unknown): EvaluationRequest['action'] | undefined {
  if (!isObject(value) || !keysWithin(value, ACTION_KEYS) || typeof value.name !== 'string' || !ACTION_NAME.test(value.name)) return undefined;
  if (value.properties === undefined) return { name: value.name };
  const properties = record(value.properties, 64);
  return properties && { name: value.name, properties };
}

function resource(value: unknown): EvaluationRequest['resource'] | undefined {
  if (!isObject(value) || !keysWithin(value, RESOURCE_KEYS) || !isEntityType(value.type) || !text(value.id, 1, 128)) return undefined;
  if (value.properties === undefined) return { type: value.type, id: value.id };
  const copy = record(value.properties, 64);
  if (!copy) return undefined;
  let count = 0;
  for (const key in copy) {
    count += 1;
    if (count > 32 || !RESOURCE_PROPERTY.test(key) || !flatValue(copy[key])) return undefined;
  }
  return { type: value.type, id: value.id, properties: copy as Record<string, string | number | boolean> };
}

const EVALUATION_KEYS = new Set(['subject', 'action', 'resource', 'context', 'min_directory_revision', 'min_policy_digest']);

/** A body of `POST /access/v1/evaluation` as `evaluationRequestSchema` parses it, or undefined: ask zod. */
export function quickEvaluationRequest(body: unknown): EvaluationRequest | undefined {
  if (!isObject(body) || !keysWithin(body, EVALUATION_KEYS)) return undefined;
  const s = subject(body.subject);
  const a = s && action(body.action);
  const r = a && resource(body.resource);
  if (!r) return undefined;
  const out: EvaluationRequest = { subject: s, action: a, resource: r };
  if (body.context !== undefined) {
    const context = record(body.context, Infinity);
    if (!context) return undefined;
    out.context = context;
  }
  return freshness(body, out) ? out : undefined;
}

/**
 * A body of `POST /access/v1/evaluations` as `evaluationsRequestSchema` parses it, or
 * undefined: ask zod. Only the plain batch — defaults, items and freshness, no `options` —
 * is checked here; a batch with options goes to zod.
 */
export function quickEvaluationsRequest(body: unknown): EvaluationsRequest | undefined {
  if (!isObject(body) || !keysWithin(body, EVALUATION_KEYS_BATCH)) return undefined;
  const out: EvaluationsRequest = {};
  if (body.subject !== undefined && !(out.subject = subject(body.subject))) return undefined;
  if (body.action !== undefined && !(out.action = action(body.action))) return undefined;
  if (body.resource !== undefined && !(out.resource = resource(body.resource))) return undefined;
  if (body.context !== undefined && !(out.context = record(body.context, Infinity))) return undefined;
  if (body.evaluations !== undefined) {
    const items = body.evaluations;
    if (!Array.isArray(items) || items.length > MAX_EVALUATIONS) return undefined;
    const evaluations: NonNullable<EvaluationsRequest['evaluations']> = [];
    for (const item of items as unknown[]) {
      if (!isObject(item) || !keysWithin(item, ITEM_KEYS)) return undefined;
      const e: NonNullable<EvaluationsRequest['evaluations']>[number] = {};
      if (item.subject !== undefined && !(e.subject = subject(item.subject))) return undefined;
      if (item.action !== undefined && !(e.action = action(item.action))) return undefined;
      if (item.resource !== undefined && !(e.resource = resource(item.resource))) return undefined;
      if (item.context !== undefined && !(e.context = record(item.context, Infinity))) return undefined;
      evaluations.push(e);
    }
    out.evaluations = evaluations;
  }
  return freshness(body, out) ? out : undefined;
}

const EVALUATION_KEYS_BATCH = new Set(['subject', 'action', 'resource', 'context', 'evaluations', 'min_directory_revision', 'min_policy_digest']);
const ITEM_KEYS = new Set(['subject', 'action', 'resource', 'context']);

const IS_KEYS = new Set(['identity_context', 'policy_context', 'resource_context', 'min_directory_revision', 'min_policy_digest']);
const IDENTITY_KEYS = new Set(['type', 'identity']);
const POLICY_KEYS = new Set(['path', 'decisions']);
const IDENTITY_TYPES: Readonly<Record<string, IsRequest['identity_context']['type']>> = {
  IDENTITY_TYPE_SUB: 'IDENTITY_TYPE_SUB',
  IDENTITY_TYPE_JWT: 'IDENTITY_TYPE_JWT',
  IDENTITY_TYPE_NONE: 'IDENTITY_TYPE_NONE',
  SUB: 'IDENTITY_TYPE_SUB',
  JWT: 'IDENTITY_TYPE_JWT',
  NONE: 'IDENTITY_TYPE_NONE',
};

/** A body of `POST /api/v2/authz/is` as `isRequestSchema` parses it, or undefined: ask zod. */
export function quickIsRequest(body: unknown): IsRequest | undefined {
  if (!isObject(body) || !keysWithin(body, IS_KEYS)) return undefined;
  const identity = body.identity_context;
  const policy = body.policy_context;
  const resourceContext = body.resource_context;
  if (!isObject(identity) || !keysWithin(identity, IDENTITY_KEYS) || !isObject(policy) || !keysWithin(policy, POLICY_KEYS)) return undefined;
  const type = typeof identity.type === 'string' && Object.hasOwn(IDENTITY_TYPES, identity.type) ? IDENTITY_TYPES[identity.type] : undefined;
  if (type === undefined || (identity.identity !== undefined && !text(identity.identity, 0, 8192))) return undefined;
  const { path, decisions } = policy;
  if (typeof path !== 'string' || !POLICY_PATH_PATTERN.test(path) || !Array.isArray(decisions) || decisions.length < 1 || decisions.length > 8) return undefined;
  if (!decisions.every((d) => text(d, 0, 64))) return undefined;
  const attributes = record(resourceContext, Infinity);
  if (!attributes || !isEntityType(attributes.type) || !text(attributes.id, 1, 128)) return undefined;
  let count = 0;
  for (const key in attributes) {
    count += 1;
    if (count > 34 || (key !== 'type' && key !== 'id' && !flatValue(attributes[key]))) return undefined;
  }
  const out: IsRequest = {
    identity_context: identity.identity === undefined ? { type } : { type, identity: identity.identity as string },
    policy_context: { path, decisions: [...(decisions as string[])] },
    resource_context: attributes as IsRequest['resource_context'],
  };
  return freshness(body, out) ? out : undefined;
}
