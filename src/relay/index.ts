export { createRelay } from './create-relay';
export type { Relay, RelayDeps } from './create-relay';
export { INSTANCE_REGISTRATIONS_PATH, EXEC_PATH, REGISTRATIONS_PAGE } from './management-router';
export type { RegistrationsPage } from './management-router';
export { CLOSE_CODES } from './close-codes';
export { FRAME_RATE } from './frame-rate';
export { MAX_BAD_FRAMES } from './edge-session';
export type { EdgeConnection } from './relay-store';
export { RELAY_ROUTES } from './relay-openapi';
