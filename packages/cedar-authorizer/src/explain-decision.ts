/**
 * Why a decision came out as it did, in words a newcomer reads: each determining policy's
 * id (`<file>:<line>`, as `splitPolicyFiles` names it) with that policy's first comment
 * line, or {@link NO_POLICY_PERMITS} for a deny no policy determined (nothing permitted and
 * nothing forbade). Decision records carry it (docs/reference/api.md, "Decision records").
 */

/** One reason: the policy that determined the decision and its first comment line ('' when it has none). */
export type { DecisionReason } from '@outpost/express-authz';
import type { DecisionReason } from '@outpost/express-authz';

/** The reason of a deny that no policy determined. */
export const NO_POLICY_PERMITS = 'no policy permits';

/** Longest comment line kept, in characters: reasons travel in bounded records and responses. */
export const MAX_REASON_COMMENT = 200;

const POLICY_ID = /^(.+?):(\d+)(?::\d+)?$/;
const COMMENT = /^\s*\/\/\s?(.*)$/;

/** Comments found so far, per image's files and policy id: an image's text never changes. */
const comments = new WeakMap<Readonly<Record<string, string>>, Map<string, string>>();

/**
 * The first line of the `//` comment block right above line `line` of `text` (no blank line
 * between), trimmed and cut to {@link MAX_REASON_COMMENT}; '' when there is none.
 */
function commentAbove(text: string, line: number): string {
  const lines = text.split('\n');
  let first: string | undefined;
  for (let i = line - 2; i >= 0; i--) {
    const match = COMMENT.exec(lines[i] ?? '');
    if (!match) break;
    first = match[1];
  }
  return (first ?? '').trim().slice(0, MAX_REASON_COMMENT);
}

/** The first comment line of the policy `id` names in `files`; '' for an id that names no file. */
export function policyComment(files: Readonly<Record<string, string>>, id: string): string {
  let known = comments.get(files);
  if (!known) {
    known = new Map();
    comments.set(files, known);
  }
  const cached = known.get(id);
  if (cached !== undefined) return cached;
  const match = POLICY_ID.exec(id);
  const text = match ? files[match[1] as string] : undefined;
  const comment = text === undefined ? '' : commentAbove(text, Number(match![2]));
  known.set(id, comment);
  return comment;
}

/**
 * The reasons of one decision, given the image's files (`PolicyImage.files`) and the ids of
 * the policies that determined it (the permits of an allow, the forbids of a deny): one
 * reason per id, in order; a deny with none is `[{ policy: null, comment: "no policy permits" }]`.
 * Pure: the same input gives the same answer (comment lines are remembered per image).
 */
export function explainDecision(
  files: Readonly<Record<string, string>>,
  decision: { readonly allowed: boolean; readonly reasons: readonly string[] },
): DecisionReason[] {
  if (decision.reasons.length === 0) return decision.allowed ? [] : [{ policy: null, comment: NO_POLICY_PERMITS }];
  return decision.reasons.map((id) => ({ policy: id, comment: policyComment(files, id) }));
}
