import type { EdgeMessage } from '../relay-protocol';
import type { InstanceKey } from './registration';
import type { Transitions } from './state-gate';

/**
 * Where one edge socket is in the relay protocol (docs/reference/api.md, "Relay WebSocket"):
 *
 * - `awaiting-register`: authenticated at the upgrade; the first frame must be `register`, in time.
 * - `registering`: the `register` frame is being stored; frames behind it wait for the outcome.
 * - `claiming`: stored; the relay makes this socket the instance's live one (an older socket is
 *   replaced, cluster presence claimed) before the edge hears `registered`; frames still wait.
 * - `registered`: the edge heard `registered`; its frames are handled.
 * - `closed`: the socket closed; nothing more is handled. `key` is what it was registered as,
 *   if anything, so its disconnect can still be stored.
 */
export type EdgeSessionState =
  | { readonly name: 'awaiting-register' }
  | { readonly name: 'registering' }
  | { readonly name: 'claiming'; readonly key: InstanceKey }
  | { readonly name: 'registered'; readonly key: InstanceKey }
  | { readonly name: 'closed'; readonly key: InstanceKey | undefined };

/** The moves an edge session may make; any state may close, nothing leaves `closed`. */
export const EDGE_SESSION_TRANSITIONS: Transitions<EdgeSessionState> = {
  'awaiting-register': ['registering', 'closed'],
  registering: ['claiming', 'closed'],
  claiming: ['registered', 'closed'],
  registered: ['closed'],
  closed: [],
};

/**
 * What a session does with a well-formed frame in a given state: `register` starts the
 * registration, `handle` serves the frame, `wait` queues it behind the registration's outcome,
 * `not_registered` refuses it and closes (1008), `already_registered` refuses it and stays open,
 * `drop` ignores it.
 */
export type FrameAction = 'register' | 'handle' | 'wait' | 'not_registered' | 'already_registered' | 'drop';

/** The frame side of an edge session's gate: the one place that says which frame each state accepts. */
export function frameAction(state: EdgeSessionState['name'], type: EdgeMessage['type']): FrameAction {
  switch (state) {
    case 'awaiting-register':
      return type === 'register' ? 'register' : 'not_registered';
    case 'registering':
    case 'claiming':
      return 'wait';
    case 'registered':
      return type === 'register' ? 'already_registered' : 'handle';
    case 'closed':
      return 'drop';
  }
}

/** The instance a session is (or, once closed, was) registered as. */
export function registeredKey(state: EdgeSessionState): InstanceKey | undefined {
  return 'key' in state ? state.key : undefined;
}
