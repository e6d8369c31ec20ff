import { z } from 'zod';
import { freshnessFields } from './freshness-fields';

// AuthZEN Authorization API 1.0 §8, the Search APIs: which subjects, resources or actions
// would be permitted, with the paging of §8.2. The searched-for entity names only its
// type (an id, if sent, is ignored: §8.4, §8.5); every other entity must be whole.

/** The three search endpoints (AuthZEN §8.4–§8.6), as named in the metadata (§9.1.1). */
export const AUTHZEN_SEARCH_PATHS = {
  subject: '/access/v1/search/subject',
  resource: '/access/v1/search/resource',
  action: '/access/v1/search/action',
} as const;

/** What a search looks for. */
export type SearchKind = keyof typeof AUTHZEN_SEARCH_PATHS;

/** Most results in one page: a larger `page.limit` is lowered to it (docs/reference/limits.md). */
export const MAX_SEARCH_PAGE_SIZE = 1_000;

/** Longest page token accepted (ours are under 200 characters). */
export const MAX_PAGE_TOKEN_LENGTH = 512;

const scalar = z.union([z.string().max(512), z.number(), z.boolean()]);
const flatProperties = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), scalar)
  .refine((p) => Object.keys(p).length <= 32, 'too many properties')
  .optional();
const anyProperties = z.record(z.string().max(64), z.unknown()).optional();

// Types are free text here: a type the policy does not know has no candidates, and a
// search for it answers an empty list, not a 400 (the certification scenario's §4.6).
const type = z.string().min(1).max(128);
const subject = z.object({ type, id: z.string().min(1).max(256).optional(), properties: anyProperties });
const resource = z.object({ type, id: z.string().min(1).max(128).optional(), properties: flatProperties });
const action = z.object({ name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'action.name must be a Cedar action id such as delete'), properties: anyProperties });
const context = z.record(z.string(), z.unknown()).optional();

/** The `page` object of a search request (AuthZEN §8.2.1); `properties` is accepted and not used. */
export const searchPageRequestSchema = z.object({
  token: z.string().max(MAX_PAGE_TOKEN_LENGTH).optional(),
  limit: z.number().int().min(0).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

/** One body for all three searches; {@link searchInputProblem} says which parts each one needs. */
export const searchRequestSchema = z.object({
  subject,
  action: action.optional(),
  resource,
  context,
  page: searchPageRequestSchema.optional(),
  ...freshnessFields,
});
export type SearchRequest = z.infer<typeof searchRequestSchema>;

/**
 * What a search lacks, or undefined when it is complete: the searched-for entity needs
 * only its type; the others are inputs and need their ids (subject and resource) or name
 * (action); an action search has no action (AuthZEN §8.4–§8.6).
 */
export function searchInputProblem(kind: SearchKind, body: SearchRequest): string | undefined {
  if (kind !== 'action' && body.action === undefined) return `a ${kind} search needs an action`;
  if (kind !== 'subject' && body.subject.id === undefined) return `a ${kind} search needs subject.id`;
  if (kind !== 'resource' && body.resource.id === undefined) return `a ${kind} search needs resource.id`;
  return undefined;
}

/** The `page` object of a search response (AuthZEN §8.2.2): `next_token` is `""` on the last page. */
export const searchPageResponseSchema = z.object({
  next_token: z.string(),
  count: z.number().int().min(0).optional(),
  total: z.number().int().min(0).optional(),
});

/** A search response (AuthZEN §8.3): entities of the searched type; `page` when paging. */
export const searchResponseSchema = z.object({
  page: searchPageResponseSchema.optional(),
  results: z.array(z.union([z.object({ type: z.string(), id: z.string() }), z.object({ name: z.string() })])),
});
export type SearchResponse = z.infer<typeof searchResponseSchema>;
