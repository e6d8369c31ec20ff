export {
  RELAY_PATH,
  MAX_FRAME_BYTES,
  COMMANDS,
  edgeMessageSchema,
  relayMessageSchema,
  edgeStatusSchema,
  parseFrame,
} from './messages';
export type { CommandName, EdgeMessage, RelayMessage, EdgeStatus } from './messages';
