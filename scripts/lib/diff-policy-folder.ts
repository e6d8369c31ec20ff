import { resolve } from 'node:path';
import { PolicyImageError, createPolicyImage, readPolicyFolder } from '../../src/policy';
import { callTenantApi } from './call-tenant-api';
import { formatTable } from './format-table';
import { ScriptError } from './script-error';
import type { TenantCredentials } from './tenant-credentials';

type Outcome = 'allow' | 'deny';

/** The dry-run answer (docs/reference/api.md, "Dry run"), as far as the CLI prints it. */
export interface DryRunAnswer {
  readonly name: string;
  readonly instance_id: string;
  readonly candidate_digest: string;
  readonly directory_revision: number;
  readonly sampled: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly flips: { readonly allow_to_deny: number; readonly deny_to_allow: number };
  readonly changes: readonly (SampledRequest & { readonly recorded: Outcome; readonly candidate: Outcome })[];
  readonly policy_only: {
    readonly flips: { readonly allow_to_deny: number; readonly deny_to_allow: number };
    readonly changes: readonly (SampledRequest & { readonly current: Outcome; readonly candidate: Outcome })[];
  } | null;
}

interface SampledRequest {
  readonly principal: string;
  /** The principal's e-mail in the tenant's directory; null when it has none for the id. */
  readonly principal_email?: string | null;
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string; readonly attributes?: Record<string, unknown> };
}

const HEADER = ['flip', 'cause', 'principal', 'action', 'resource'] as const;

/** One key per sampled request, to find a flip among the policy-only ones. */
const requestKey = (r: SampledRequest) => JSON.stringify([r.principal, r.action, r.resource]);

/**
 * Why a flip against the recorded decision happens: `policy` when the candidate also
 * decides it otherwise than the edge's current image over the same directory, else
 * `since recorded` (the directory or the edge's image changed since); `?` when the
 * control plane could not compare with the edge's image.
 */
function causes(answer: DryRunAnswer): (change: SampledRequest) => string {
  if (answer.policy_only === null) return () => '?';
  const byPolicy = new Set(answer.policy_only.changes.map(requestKey));
  return (change) => (byPolicy.has(requestKey(change)) ? 'policy' : 'since recorded');
}

/** `Type:id`, then the attributes as `{name=value, …}` when there are any. */
function describeResource(resource: SampledRequest['resource']): string {
  const attributes = Object.entries(resource.attributes ?? {});
  const extra = attributes.length === 0 ? '' : ` {${attributes.map(([k, v]) => `${k}=${String(v)}`).join(', ')}}`;
  return `${resource.type}:${resource.id}${extra}`;
}

/** The policy-only counts, or why there are none. */
function describePolicyOnly(policyOnly: DryRunAnswer['policy_only']): string {
  if (policyOnly === null) return "the edge's current image is not in the registry: flips caused by the policy alone are not separated";
  const { allow_to_deny: toDeny, deny_to_allow: toAllow } = policyOnly.flips;
  return `the policy alone (against the edge's current image, same directory): ${toDeny} allow -> deny, ${toAllow} deny -> allow`;
}

/**
 * The flips as an aligned table (allow → deny first, then deny → allow, each sorted by
 * principal, action and resource) with each flip's cause and its principal by e-mail (the id
 * when the directory has none), then a line with the counts and
 * one with the policy-only counts (the candidate against the edge's current image).
 */
export function formatDiff(answer: DryRunAnswer): string {
  const cause = causes(answer);
  const rows = answer.changes
    .map((c) => [`${c.recorded} -> ${c.candidate}`, cause(c), c.principal_email ?? c.principal, c.action, describeResource(c.resource)])
    .sort((a, b) => a.join('\u0000').localeCompare(b.join('\u0000')));
  const { allow_to_deny: toDeny, deny_to_allow: toAllow } = answer.flips;
  const summary =
    `${answer.name} ${answer.candidate_digest} against ${answer.instance_id}'s ${answer.sampled} recorded decisions ` +
    `(central directory revision ${answer.directory_revision}): ${toDeny} allow -> deny, ${toAllow} deny -> allow, ` +
    `${answer.unchanged} unchanged${answer.failed > 0 ? `, ${answer.failed} could not be decided` : ''}\n` +
    describePolicyOnly(answer.policy_only);
  return rows.length === 0 ? `no decision would flip\n${summary}` : `${formatTable(HEADER, rows)}\n${summary}`;
}

/**
 * `npm run policy -- diff <folder> --instance <id>`: sends the folder as a candidate to
 * the dry-run API, which replays that edge's recorded decisions against it, and prints
 * which would flip. Nothing is pushed. Errors (invalid folder, failing tests, unknown or
 * disconnected instance) are {@link ScriptError}s with the control plane's message.
 */
export async function diffPolicyFolder(
  folder: string,
  options: { readonly instance: string; readonly name?: string },
  creds: TenantCredentials,
  print: (text: string) => void = console.log,
): Promise<DryRunAnswer> {
  let image;
  try {
    image = readPolicyFolder(resolve(folder));
    if (options.name !== undefined) image = createPolicyImage(options.name, image.files);
  } catch (err) {
    if (err instanceof PolicyImageError) throw new ScriptError(err.message);
    throw err;
  }
  const res = await callTenantApi<DryRunAnswer>(creds, {
    method: 'POST',
    path: `/api/v2/admin/policies/${encodeURIComponent(image.name)}/dry-run`,
    body: { files: image.files, instance_id: options.instance },
  });
  print(formatDiff(res.body));
  return res.body;
}
