export { createRelay } from './create-relay';
export type { Relay, RelayDeps } from './create-relay';
export { INSTANCE_REGISTRATIONS_PATH, EXEC_PATH } from './management-router';
export { RELAY_CHALLENGE } from './handle-upgrade';
export { CLOSE_CODES, MAX_BAD_FRAMES } from './edge-session';
export type { EdgeConnection, RelayStore } from './relay-store';
