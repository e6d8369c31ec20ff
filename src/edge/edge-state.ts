import type { CompiledPolicy, PolicyImage } from '@outpost/cedar-authorizer';
import type { DirectoryData } from '../directory';
import type { EdgeStatus } from '../relay-protocol';

/** The active policy image with its compiled form; swapped as one value so readers never see a mix. */
export interface ActivePolicy {
  readonly image: PolicyImage;
  readonly compiled: CompiledPolicy;
}

/**
 * What the edge serves from: the active policy and the directory replica. Each is
 * replaced by a single assignment (an atomic swap for every request that starts later;
 * requests in flight keep the values they read).
 */
export interface EdgeState {
  policy: ActivePolicy | undefined;
  directory: DirectoryData | undefined;
}

/** The status the edge reports to the relay (`register`, `status`, `command_result`). */
export function edgeStatus(state: EdgeState): EdgeStatus {
  return {
    policy_name: state.policy?.image.name ?? '',
    policy_digest: state.policy?.image.digest ?? null,
    directory_revision: state.directory?.revision ?? 0,
  };
}
