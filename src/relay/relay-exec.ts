import type { HttpError } from '../http';
import type { ClusterNode } from './cluster-plugin';
import type { EdgeSession } from './edge-session';
import type { InstanceKey } from './registration';
import type { RegistrationStore } from './registration-store';
import { instanceNotConnected, instanceNotFound, relayClosing } from './relay-errors';
import type { Relay } from './relay';
import type { RelayState } from './relay-state';

/** What exec, "Try a decision" and the decision sample read: the relay's state, the registrations, the cluster. */
export interface RelayExecDeps {
  readonly state: RelayState;
  readonly registrations: RegistrationStore;
  readonly cluster: ClusterNode | undefined;
}

/** Why an instance no node holds cannot take a command: unknown to the tenant (404), or not connected (409). */
export async function whyNotHeld(deps: Pick<RelayExecDeps, 'state' | 'registrations'>, key: InstanceKey): Promise<HttpError> {
  // Ids are looked up within the caller's tenant: another tenant's instance is simply unknown.
  const registration = await deps.registrations.get(key);
  if (!deps.state.running) return relayClosing();
  return registration ? instanceNotConnected() : instanceNotFound();
}

/**
 * This node's live session of one of the tenant's instances; undefined when another node
 * may hold it (cluster mode: the presence registry is asked first, the database only when
 * no node holds it); otherwise the HttpError exec answers with.
 */
async function liveSession(deps: RelayExecDeps, key: InstanceKey): Promise<EdgeSession | undefined> {
  deps.state.checkRunning();
  // A socket this node holds was registered (stored) before it went live, and a connected
  // registration cannot be released: no database read needed. The key includes the tenant.
  const held = deps.state.session(key);
  if (held) return held;
  if (deps.cluster) return undefined;
  throw await whyNotHeld(deps, key);
}

/**
 * The relay's requests to one edge: a local socket is used directly, even while Redis is
 * down; only an edge another node holds is routed through the cluster.
 */
export function createRelayExec(deps: RelayExecDeps): Pick<Relay, 'exec' | 'tryDecision' | 'sampleDecisions'> {
  return {
    async exec(tenantId, instanceId, command) {
      const key = { tenantId, instanceId };
      const session = await liveSession(deps, key);
      return session ? session.send(command) : deps.cluster!.exec(key, command);
    },
    async tryDecision(tenantId, instanceId, request) {
      const key = { tenantId, instanceId };
      const session = await liveSession(deps, key);
      return session ? session.tryDecision(request) : deps.cluster!.tryDecision(key, request);
    },
    async sampleDecisions(tenantId, instanceId) {
      const key = { tenantId, instanceId };
      const session = await liveSession(deps, key);
      return session ? session.sample() : deps.cluster!.sample(key);
    },
  };
}
