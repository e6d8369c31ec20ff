import { DECISION_RECORD_LIMITS, MAX_FRAME_BYTES, type DecisionRecord } from '../relay-protocol';
import { systemTimers, type RelayLink, type Timers } from '../edge';
import type { DecisionLog } from './decision-log';

/** How often an edge sends what its decision log holds (docs/reference/api.md, "Decision records"). */
export const DECISION_SHIP_INTERVAL_MS = 200;
/** Most `decisions` frames one tick sends: with the interval, an edge ships at most 2,500 records a second. */
export const DECISION_FRAMES_PER_TICK = 5;
/** Room left in a frame for `{"type":"decisions","records":[…]}` around the records. */
const FRAME_OVERHEAD_BYTES = 64;

/** Ships the decision log to the relay on a timer, off every decision's path. */
export interface DecisionShipper {
  start(): void;
  /** Sends what the log holds now (up to a tick's frames); false when not connected. */
  flush(): boolean;
  stop(): void;
  /** Records handed to the relay connection. */
  readonly shipped: number;
}

/**
 * Every {@link DECISION_SHIP_INTERVAL_MS} while the relay is connected, takes records from the
 * log and sends them as `decisions` frames. Records leave the log when taken, so none is sent
 * twice; while the relay is away they wait in the log, whose bound drops the oldest. The relay
 * does not acknowledge: a frame lost with its socket is lost (at most once, never twice).
 */
export function createDecisionShipper(log: DecisionLog, relay: () => RelayLink | undefined, timers: Timers = systemTimers): DecisionShipper {
  let handle: unknown;
  let running = false;
  let shipped = 0;

  // A record taken from the log that did not fit the last frame: it opens the next one.
  let carried: { record: DecisionRecord; bytes: number } | undefined;

  /** The next frame's records, within both bounds of the wire; empty when the log is. */
  function nextFrame(): DecisionRecord[] {
    const records: DecisionRecord[] = [];
    let bytes = FRAME_OVERHEAD_BYTES;
    while (records.length < DECISION_RECORD_LIMITS.maxRecordsPerFrame) {
      let next = carried;
      carried = undefined;
      if (next === undefined) {
        const [record] = log.take(1);
        if (record === undefined) break;
        next = { record, bytes: Buffer.byteLength(JSON.stringify(record)) + 1 };
      }
      // Cannot happen within the record's own bounds (about 16 KiB at most), but never stuck on one.
      if (FRAME_OVERHEAD_BYTES + next.bytes > MAX_FRAME_BYTES) continue;
      if (bytes + next.bytes > MAX_FRAME_BYTES) {
        carried = next;
        break;
      }
      records.push(next.record);
      bytes += next.bytes;
    }
    return records;
  }

  function flush(): boolean {
    const sender = relay();
    if (!sender?.connected) return false;
    for (let frames = 0; frames < DECISION_FRAMES_PER_TICK; frames++) {
      const records = nextFrame();
      if (records.length === 0) break;
      sender.send({ type: 'decisions', records });
      shipped += records.length;
    }
    return true;
  }

  function tick(): void {
    if (!running) return;
    flush();
    handle = timers.setTimeout(tick, DECISION_SHIP_INTERVAL_MS);
  }

  return {
    start() {
      if (running) return;
      running = true;
      handle = timers.setTimeout(tick, DECISION_SHIP_INTERVAL_MS);
    },
    flush,
    stop() {
      running = false;
      timers.clearTimeout(handle);
    },
    get shipped() {
      return shipped;
    },
  };
}
