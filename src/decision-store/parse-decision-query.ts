import { BadRequestError } from '../http';
import { DECISION_RECORD_LIMITS } from '../relay-protocol';
import { DECISION_PAGE, type DecisionFilter, type DecisionPage } from './decision-repository';

const ID = /^(0|[1-9][0-9]{0,15})$/;
const KNOWN = new Set(['principal', 'action', 'resource', 'decision', 'instance', 'request_id', 'since', 'before', 'after', 'limit']);

function text(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > DECISION_RECORD_LIMITS.maxText) {
    throw new BadRequestError(`${name} must be one value of 1-${DECISION_RECORD_LIMITS.maxText} characters`);
  }
  return value;
}

function id(query: Record<string, unknown>, name: string): number | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (!ID.test(value)) throw new BadRequestError(`${name} must be a record id`);
  return Number(value);
}

/** `since`: epoch milliseconds or an ISO 8601 date-time. */
function since(query: Record<string, unknown>): number | undefined {
  const value = text(query, 'since');
  if (value === undefined) return undefined;
  const at = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(at)) throw new BadRequestError('since must be epoch milliseconds or an ISO 8601 date-time');
  return at;
}

/**
 * The filters and page of a decision listing (docs/reference/api.md, "Decision records"), from a
 * query string; 400 `bad_request` naming the first bad parameter, or an unknown one.
 */
export function parseDecisionQuery(query: Record<string, unknown>): { filter: DecisionFilter; page: DecisionPage } {
  const unknown = Object.keys(query).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) throw new BadRequestError(`unknown parameter ${unknown.slice(0, 64)}`);
  const decision = text(query, 'decision');
  if (decision !== undefined && decision !== 'allow' && decision !== 'deny') throw new BadRequestError('decision must be allow or deny');
  const limitText = text(query, 'limit');
  const limit = limitText === undefined ? DECISION_PAGE.default : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > DECISION_PAGE.max || !/^\d+$/.test(limitText ?? '1')) {
    throw new BadRequestError(`limit must be 1-${DECISION_PAGE.max}`);
  }
  const before = id(query, 'before');
  const after = id(query, 'after');
  if (before !== undefined && after !== undefined) throw new BadRequestError('before and after cannot be combined');
  const filter: DecisionFilter = {
    ...optional('principal', text(query, 'principal')),
    ...optional('action', text(query, 'action')),
    ...optional('resource', text(query, 'resource')),
    ...optional('decision', decision as 'allow' | 'deny' | undefined),
    ...optional('instance', text(query, 'instance')),
    ...optional('requestId', text(query, 'request_id')),
    ...optional('since', since(query)),
  };
  return { filter, page: { limit, ...optional('before', before), ...optional('after', after) } };
}

function optional<K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, V>);
}
