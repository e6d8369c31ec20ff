export { createRelay } from './create-relay';
export type { Relay, RelayDeps } from './relay';
export { INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE } from './management-router';
export { EXEC_PATH, EXEC_BODY_LIMIT, NO_STORE } from './command-routes';
export type { CommandRoute } from './command-routes';
export { MAX_PENDING_SAMPLES } from './pending-samples';
export type { DecisionSampleReply } from './pending-samples';
export { CLOSE_CODES } from './close-codes';
export { FRAME_RATE } from './frame-rate';
export { MAX_BAD_FRAMES } from './edge-session';
// The hook cluster mode plugs into (src/cluster), and what a plug-in answers with.
export type { RelayClusterPlugin, ClusterJoinDeps, ClusterNode } from './cluster-plugin';
// The hook the platform's management routes plug into (src/relay-broadcast, src/edge-drift), and what they read.
export type { RelayExtension, RelayView } from './relay-extension';
export type { EdgeSession } from './edge-session';
export type { InstanceKey, Registration } from './registration';
export { parseCommand, isPlainObject } from './parse-exec-request';
export { sendToLocalEdges, failureCode } from './send-to-edges';
export type { FailedEdge, SendOutcome } from './send-to-edges';
export { parseRoutedOutcome, parseRoutedTryResult } from './routed-outcome';
export { edgeError, edgeTimeout, instanceDisconnected, instanceNotConnected, instanceNotFound, relayClosing } from './relay-errors';
