import { DISPLAY_SAFE, SHA256_DIGEST } from './display-text';
import type { EdgeMessage } from './messages';

// The hand check for the frame every exec waits for, on the relay's hot path. The zod schema
// stays the frame's schema of record: this accepts only a successful `command_result` it can
// see at a glance is valid, with no member the schema would strip, and returns exactly what
// the schema's parse would; for anything else it answers `undefined` and the caller parses
// with zod. So it can make a frame cheaper to read, never read differently
// (test/relay-protocol/quick-command-result.test.ts compares both on generated frames).

type Json = Record<string, unknown>;

const FRAME_KEYS: ReadonlySet<string> = new Set(['type', 'request_id', 'ok', 'status']);
const STATUS_KEYS: ReadonlySet<string> = new Set(['policy_name', 'policy_digest', 'directory_revision']);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Only `allowed` keys (never `__proto__`, which is left to zod). */
function keysWithin(value: Json, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** A parsed frame as the edge message schema would return it, when it is a plainly valid successful `command_result`. */
export function quickCommandResult(json: unknown): EdgeMessage | undefined {
  if (!isObject(json) || json.type !== 'command_result' || json.ok !== true || !keysWithin(json, FRAME_KEYS)) return undefined;
  const { request_id: requestId, status } = json;
  if (typeof requestId !== 'string' || requestId.length < 1 || requestId.length > 64) return undefined;
  if (!isObject(status) || !keysWithin(status, STATUS_KEYS)) return undefined;
  const { policy_name: policyName, policy_digest: digest, directory_revision: revision } = status;
  if (typeof policyName !== 'string' || policyName.length > 64 || !DISPLAY_SAFE.test(policyName)) return undefined;
  if (digest !== null && (typeof digest !== 'string' || !SHA256_DIGEST.test(digest))) return undefined;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return undefined;
  return { type: 'command_result', request_id: requestId, ok: true, status: { policy_name: policyName, policy_digest: digest, directory_revision: revision } };
}
