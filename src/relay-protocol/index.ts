export {
  RELAY_PATH,
  MAX_FRAME_BYTES,
  COMMANDS,
  DEFAULT_COMMAND_TIMEOUT_MS,
  edgeMessageSchema,
  relayMessageSchema,
  parseFrame,
  INSTANCE_ID_PATTERN,
  DECISION_SAMPLE_LIMITS,
  sampledDecisionSchema,
  EDGE_FAILURE_CODES,
} from './messages';
export type { CommandName, EdgeMessage, RelayMessage, EdgeStatus, SampledDecision } from './messages';
export { DECISION_RECORD_LIMITS, decisionRecordSchema, fitsDecisionRecord } from './decision-record';
export type { DecisionRecord, DecisionRecordReason } from './decision-record';
export { tryDecisionRequestSchema, tryResultFrameSchema } from './try-decision';
export type { TryDecisionRequest, TryDecisionResult } from './try-decision';
export { BROADCAST_LIMITS, BROADCAST_PATH, INSTANCE_REGISTRATIONS_PATH, METRICS_PATH, REGISTRATIONS_PAGE } from './management-paths';
