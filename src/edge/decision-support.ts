import type { Request, Response } from 'express';
import type { DirectoryData } from '../directory';
import { FRESHNESS_HEADERS } from '../decision-protocol';
import { BadRequestError, ServiceUnavailableError } from '../http';
import type { ActivePolicy, EdgeState } from './edge-state';
import type { FreshnessDemand } from './freshness';

const REVISION_HEADER = /^\d{1,15}$/;
const DIGEST_HEADER = /^sha256:[0-9a-f]{64}$/;

function header(req: Request, name: string, pattern: RegExp): string | undefined {
  const value = req.get(name);
  if (value === undefined) return undefined;
  if (!pattern.test(value)) throw new BadRequestError(`invalid ${name} header`, 'invalid_freshness');
  return value;
}

/** The caller's freshness demand: the `Outpost-Min-*` headers, else the body fields. */
export function readDemand(req: Request, body: { min_directory_revision?: number | undefined; min_policy_digest?: string | undefined }): FreshnessDemand {
  const revision = header(req, FRESHNESS_HEADERS.minDirectoryRevision, REVISION_HEADER);
  return {
    minDirectoryRevision: revision === undefined ? body.min_directory_revision : Number(revision),
    minPolicyDigest: header(req, FRESHNESS_HEADERS.minPolicyDigest, DIGEST_HEADER) ?? body.min_policy_digest,
  };
}

/** The state a decision is made from, read once; 503 `not_ready` before the first sync. */
export function requireReady(state: EdgeState): { policy: ActivePolicy; directory: DirectoryData } {
  const { policy, directory } = state;
  if (!policy || !directory) throw new ServiceUnavailableError('no policy image or directory loaded yet', 'not_ready');
  return { policy, directory };
}

/** What a decision was made from, on every decision response (the caller can pin the next one to it). */
export function sendStateUsed(res: Response, used: { policyDigest: string; directoryRevision: number }): void {
  res.setHeader(FRESHNESS_HEADERS.policyDigest, used.policyDigest);
  res.setHeader(FRESHNESS_HEADERS.directoryRevision, String(used.directoryRevision));
}

const emailIndexes = new WeakMap<DirectoryData, Map<string, string>>();

/**
 * The directory user an identity names: a user id, or an e-mail address resolved to one
 * (as Topaz resolves identities). The e-mail index is built once per directory snapshot.
 */
export function resolveUserId(directory: DirectoryData, identity: string): string {
  let index = emailIndexes.get(directory);
  if (!index) {
    index = new Map(directory.users.map((u) => [u.email, u.id]));
    emailIndexes.set(directory, index);
  }
  return index.get(identity) ?? identity;
}
