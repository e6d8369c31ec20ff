import { BadRequestError } from '../http';
import { isPlainObject, parseCommand } from '../relay';
import type { CommandName } from '../relay-protocol';

/** Which of the tenant's edges a broadcast is for (docs/reference/api.md, "Broadcast"). */
export interface BroadcastFilter {
  /** Only edges serving this policy. */
  readonly policyName?: string;
  /**
   * Only edges whose policy digest is not `latest` or whose directory revision is behind
   * (`true`, the API's), or only those behind in one of the two (push on change narrows it to
   * what changed).
   */
  readonly staleOnly?: boolean | 'policy' | 'directory';
}

/** A validated broadcast body. */
export interface BroadcastRequest {
  readonly command: CommandName;
  readonly filter: BroadcastFilter;
}

/** The longest `filter.policy_name` accepted; a policy name is far shorter. */
const MAX_POLICY_NAME_LENGTH = 128;
const FILTER_MEMBERS = ['policy_name', 'stale_only'];

/**
 * Checks a broadcast body: `{"command": {"<name>": {}}, "filter"?: {"policy_name"?: string,
 * "stale_only"?: boolean}}`. The command is checked as exec's is; the filter strictly (an
 * unknown member is a 400, since a misspelt filter would reach more edges than meant).
 * Other top-level members are ignored, as exec ignores them.
 */
export function parseBroadcastRequest(body: unknown): BroadcastRequest {
  if (!isPlainObject(body)) throw new BadRequestError('the body must be a JSON object');
  const command = parseCommand(body.command);
  if (body.filter === undefined) return { command, filter: {} };
  const filter = body.filter;
  if (!isPlainObject(filter)) throw new BadRequestError('"filter" must be an object');
  const unknown = Object.keys(filter).find((name) => !FILTER_MEMBERS.includes(name));
  if (unknown !== undefined) throw new BadRequestError(`unknown filter member "${unknown.slice(0, 64)}"; expected policy_name or stale_only`);
  const { policy_name: policyName, stale_only: staleOnly } = filter;
  if (policyName !== undefined && (typeof policyName !== 'string' || policyName.length === 0 || policyName.length > MAX_POLICY_NAME_LENGTH)) {
    throw new BadRequestError(`"filter.policy_name" must be a policy name (1-${MAX_POLICY_NAME_LENGTH} characters)`);
  }
  if (staleOnly !== undefined && typeof staleOnly !== 'boolean') throw new BadRequestError('"filter.stale_only" must be true or false');
  return {
    command,
    filter: { ...(policyName === undefined ? {} : { policyName: policyName as string }), ...(staleOnly === undefined ? {} : { staleOnly }) },
  };
}
