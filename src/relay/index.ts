export { createRelay } from './create-relay';
export type { Relay, RelayDeps } from './create-relay';
export { INSTANCE_REGISTRATIONS_PATH, EXEC_PATH, REGISTRATIONS_PAGE } from './management-router';
export { CLOSE_CODES, MAX_BAD_FRAMES, FRAME_RATE } from './edge-session';
export type { EdgeConnection } from './relay-store';
