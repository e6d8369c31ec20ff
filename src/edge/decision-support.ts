import type { DirectoryData } from '../directory';
import { FRESHNESS_HEADERS } from '../decision-protocol';
import { BadRequestError, ServiceUnavailableError } from '../http';
import type { ActivePolicy, EdgeState } from './edge-state';
import type { FreshnessDemand } from './freshness';

/** One decision request, whatever server received it: the parsed JSON body, a header reader and the request id. */
export interface DecisionInput {
  readonly body: unknown;
  header(name: string): string | undefined;
  readonly id: string;
}

/** What a decision handler answers: a 200 JSON body with the headers that go with it. */
export interface DecisionReply {
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/** A decision endpoint: its path, its body limit and its handler (errors are thrown as `HttpError`s). */
export interface DecisionRoute {
  readonly path: string;
  readonly limitBytes: number;
  /**
   * The status for a body that is not `application/json`: 415 by default; 400 on the
   * AuthZEN endpoints, whose certification scenario requires it (its §2.4.3).
   */
  readonly wrongMediaTypeStatus?: 400 | 415;
  handle(input: DecisionInput): Promise<DecisionReply>;
}

const REVISION_HEADER = /^\d{1,15}$/;
const DIGEST_HEADER = /^sha256:[0-9a-f]{64}$/;

function header(input: DecisionInput, name: string, pattern: RegExp): string | undefined {
  const value = input.header(name);
  if (value === undefined) return undefined;
  if (!pattern.test(value)) throw new BadRequestError(`invalid ${name} header`, 'invalid_freshness');
  return value;
}

/** The caller's freshness demand: the `Outpost-Min-*` headers, else the body fields. */
export function readDemand(input: DecisionInput, body: { min_directory_revision?: number | undefined; min_policy_digest?: string | undefined }): FreshnessDemand {
  const revision = header(input, FRESHNESS_HEADERS.minDirectoryRevision, REVISION_HEADER);
  return {
    minDirectoryRevision: revision === undefined ? body.min_directory_revision : Number(revision),
    minPolicyDigest: header(input, FRESHNESS_HEADERS.minPolicyDigest, DIGEST_HEADER) ?? body.min_policy_digest,
  };
}

/** The state a decision is made from, read once; 503 `not_ready` before the first sync. */
export function requireReady(state: EdgeState): { policy: ActivePolicy; directory: DirectoryData } {
  const { policy, directory } = state;
  if (!policy || !directory) throw new ServiceUnavailableError('no policy image or directory loaded yet', 'not_ready');
  return { policy, directory };
}

/** What a decision was made from, as response headers (the caller can pin its next request to it). */
export function stateUsedHeaders(used: { policyDigest: string; directoryRevision: number }): Record<string, string> {
  return { [FRESHNESS_HEADERS.policyDigest]: used.policyDigest, [FRESHNESS_HEADERS.directoryRevision]: String(used.directoryRevision) };
}
