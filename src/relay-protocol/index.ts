export {
  RELAY_PATH,
  MAX_FRAME_BYTES,
  COMMANDS,
  edgeMessageSchema,
  relayMessageSchema,
  parseFrame,
  INSTANCE_ID_PATTERN,
} from './messages';
export type { CommandName, EdgeMessage, RelayMessage, EdgeStatus } from './messages';
