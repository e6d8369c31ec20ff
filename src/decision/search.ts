import { createHash } from 'node:crypto';
import type { SearchKind, SearchRequest, SearchResponse } from '../decision-protocol';
import { MAX_SEARCH_PAGE_SIZE } from '../decision-protocol';
import type { DirectoryData } from '../directory';
import { BadRequestError } from '../http';
import type { PolicySchemaInfo } from '../policy';
import { actionCandidates, resourceCandidates, subjectCandidates, SUBJECT_TYPE, type SearchCandidate } from './search-candidates';

/**
 * How much one search request may cost. A page ends early — with a `next_token` to go on
 * from — when either bound is reached, so a search never runs unbounded on the event loop
 * and a caller still reaches every result by paging (docs/reference/limits.md).
 */
export const SEARCH_LIMITS = {
  /** Candidates evaluated for one page. */
  maxCandidates: 10_000,
  /** Wall-clock time spent evaluating for one page (checked after each candidate; at least one is evaluated). */
  timeBudgetMs: 100,
} as const;

/** One complete AuthZEN question, as an evaluation would ask it. */
export interface SearchQuestion {
  readonly subject: { readonly type: string; readonly id: string; readonly properties?: Record<string, unknown> | undefined };
  readonly action: { readonly name: string; readonly properties?: Record<string, unknown> | undefined };
  readonly resource: { readonly type: string; readonly id: string; readonly properties?: Record<string, string | number | boolean> | undefined };
  readonly context?: Record<string, unknown> | undefined;
}

/** What a search needs: one snapshot of directory and schema, and the evaluation it answers for. */
export interface SearchDeps {
  readonly directory: DirectoryData;
  readonly schema: PolicySchemaInfo;
  /** The evaluation endpoint's own decision for one question: a search returns exactly what it permits. */
  decide(question: SearchQuestion): boolean;
  readonly now: () => number;
  readonly limits?: { readonly maxCandidates?: number; readonly timeBudgetMs?: number };
  /** Resource candidates the caller supplies in-process (e.g. an app's todos). */
  readonly candidates?: readonly SearchCandidate[];
}

/** A search's answer and what it cost. */
export interface SearchOutcome {
  readonly response: SearchResponse;
  readonly evaluated: number;
  /** Why the page ended before the candidates did; undefined when it reached the end. */
  readonly stoppedBy?: 'limit' | 'candidates' | 'time';
}

/** JSON with object keys sorted, so equal requests hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What must not change between pages (AuthZEN §8.2): every entity and parameter but the token and the ignored id. */
function requestHash(kind: SearchKind, request: SearchRequest, supplied: readonly SearchCandidate[] | undefined): string {
  const { subject, action, resource, context, page } = request;
  const searched = kind === 'subject' ? { subject: { ...subject, id: undefined } } : kind === 'resource' ? { resource: { ...resource, id: undefined } } : {};
  const fixed = { kind, subject, action, resource, context, limit: page?.limit, properties: page?.properties, supplied, ...searched };
  return createHash('sha256').update(canonical(fixed)).digest('base64url').slice(0, 22);
}

/** The opaque `next_token`: where the scan stopped (the last candidate id seen) and what was asked. */
function encodeToken(after: string, hash: string): string {
  return Buffer.from(JSON.stringify({ a: after, q: hash })).toString('base64url');
}

function decodeToken(token: string, hash: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { a, q } = (parsed ?? {}) as { a?: unknown; q?: unknown };
  if (typeof a !== 'string' || typeof q !== 'string') throw new BadRequestError('page.token is not a token this PDP issued', 'invalid_page_token');
  if (q !== hash) throw new BadRequestError('the request differs from the one page.token was issued for (AuthZEN §8.2)', 'invalid_page_token');
  return a;
}

function candidatesFor(kind: SearchKind, request: SearchRequest, deps: SearchDeps): SearchCandidate[] {
  if (kind === 'subject') return subjectCandidates(deps.directory, request.subject.type);
  if (kind === 'resource') return request.subject.type === SUBJECT_TYPE ? resourceCandidates(deps.directory, deps.schema, request.resource.type, deps.candidates) : [];
  return actionCandidates(deps.schema, request.subject.type, request.resource.type);
}

/** The question one candidate stands for: the request with the candidate in the searched-for place. */
function questionFor(kind: SearchKind, request: SearchRequest, candidate: SearchCandidate): SearchQuestion {
  const { subject, action, resource, context } = request;
  const base = { context };
  if (kind === 'subject') return { ...base, subject: { ...subject, id: candidate.id }, action: action!, resource: { ...resource, id: resource.id! } };
  if (kind === 'resource') {
    const properties = candidate.properties ? { ...resource.properties, ...candidate.properties } : resource.properties;
    return { ...base, subject: { ...subject, id: subject.id! }, action: action!, resource: { type: resource.type, id: candidate.id, properties } };
  }
  return { ...base, subject: { ...subject, id: subject.id! }, action: { name: candidate.id }, resource: { ...resource, id: resource.id! } };
}

function resultFor(kind: SearchKind, request: SearchRequest, id: string): SearchResponse['results'][number] {
  if (kind === 'action') return { name: id };
  return { type: kind === 'subject' ? request.subject.type : request.resource.type, id };
}

/**
 * Answers an AuthZEN search (§8) by evaluating each candidate with `deps.decide` — the
 * evaluation endpoint's own decision — so a result is exactly a candidate that evaluation
 * permits (Topaz answers from its directory the same way; see docs/reference/api.md for
 * why not a Cerbos-style query plan). Candidates are scanned in id order; a page ends at
 * `page.limit` results, at {@link SEARCH_LIMITS}, or at the end, and `next_token` resumes
 * after the last candidate scanned (`""` at the end). `page` is in the response when the
 * request had one or the page ended early; `total` when one page held the whole answer.
 * The input must be complete ({@link searchInputProblem}); call it synchronously, so one
 * snapshot answers the whole page.
 */
export function search(kind: SearchKind, request: SearchRequest, deps: SearchDeps): SearchOutcome {
  const hash = requestHash(kind, request, deps.candidates);
  const after = request.page?.token ? decodeToken(request.page.token, hash) : undefined;
  const limit = Math.min(request.page?.limit ?? MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_PAGE_SIZE);
  const maxCandidates = deps.limits?.maxCandidates ?? SEARCH_LIMITS.maxCandidates;
  const timeBudgetMs = deps.limits?.timeBudgetMs ?? SEARCH_LIMITS.timeBudgetMs;

  const candidates = candidatesFor(kind, request, deps);
  let i = after === undefined ? 0 : candidates.findIndex((c) => c.id > after);
  if (i === -1) i = candidates.length;
  const first = i;
  const results: SearchResponse['results'] = [];
  const started = deps.now();
  let evaluated = 0;
  let stoppedBy: SearchOutcome['stoppedBy'];
  if (limit === 0) i = candidates.length; // a limit of 0 asks for no results
  while (i < candidates.length) {
    if (results.length >= limit) stoppedBy = 'limit';
    else if (evaluated >= maxCandidates) stoppedBy = 'candidates';
    else if (evaluated > 0 && deps.now() - started >= timeBudgetMs) stoppedBy = 'time';
    if (stoppedBy) break;
    const candidate = candidates[i]!;
    evaluated += 1;
    if (deps.decide(questionFor(kind, request, candidate))) results.push(resultFor(kind, request, candidate.id));
    i += 1;
  }
  const nextToken = stoppedBy ? encodeToken(candidates[i - 1]!.id, hash) : '';
  const whole = !stoppedBy && first === 0 && limit > 0;
  const page = request.page !== undefined || stoppedBy ? { next_token: nextToken, count: results.length, ...(whole ? { total: results.length } : {}) } : undefined;
  return { response: page ? { page, results } : { results }, evaluated, ...(stoppedBy ? { stoppedBy } : {}) };
}
