/**
 * The heartbeat spreads its pings over the period (docs/reference/limits.md): sockets are
 * dealt into `intervalMs / HEARTBEAT_SLICE_MS` slices, one slice pinged per wake, each socket
 * still once per period, and one that missed its previous ping terminated at its next turn.
 * Jest's fake timers are the clock; the sockets are stand-ins with ping, terminate and events.
 */
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { HEARTBEAT_SLICE_MS, startHeartbeat } from '../../src/relay/heartbeat';

class StandIn extends EventEmitter {
  pings = 0;
  terminated = false;
  ping(): void {
    this.pings += 1;
  }
  terminate(): void {
    this.terminated = true;
  }
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('startHeartbeat', () => {
  const PERIOD = 10 * HEARTBEAT_SLICE_MS;

  it('pings one slice per wake and every socket once per period', () => {
    const heartbeat = startHeartbeat(PERIOD, () => undefined);
    const sockets = Array.from({ length: 20 }, () => new StandIn());
    for (const ws of sockets) heartbeat.track(ws as unknown as WebSocket);
    jest.advanceTimersByTime(HEARTBEAT_SLICE_MS);
    // One wake: the first of 10 slices, 2 of the 20 sockets; all at once would be 20.
    expect(sockets.filter((ws) => ws.pings === 1)).toHaveLength(2);
    jest.advanceTimersByTime(PERIOD - HEARTBEAT_SLICE_MS);
    expect(sockets.map((ws) => ws.pings)).toEqual(new Array(20).fill(1));
    heartbeat.stop();
  });

  it('terminates a socket at its next turn when it did not answer, and keeps one that did', () => {
    const pongs: unknown[] = [];
    const heartbeat = startHeartbeat(PERIOD, (ws) => pongs.push(ws));
    const [quiet, answering] = [new StandIn(), new StandIn()];
    heartbeat.track(quiet as unknown as WebSocket);
    heartbeat.track(answering as unknown as WebSocket);
    jest.advanceTimersByTime(PERIOD);
    expect([quiet.pings, answering.pings]).toEqual([1, 1]);
    answering.emit('pong');
    jest.advanceTimersByTime(PERIOD);
    expect([quiet.terminated, answering.terminated, answering.pings]).toEqual([true, false, 2]);
    expect(pongs).toEqual([answering]);
    heartbeat.stop();
  });

  it('pings every socket each wake when the period is shorter than one slice', () => {
    const heartbeat = startHeartbeat(HEARTBEAT_SLICE_MS / 5, () => undefined);
    const sockets = [new StandIn(), new StandIn(), new StandIn()];
    for (const ws of sockets) heartbeat.track(ws as unknown as WebSocket);
    jest.advanceTimersByTime(HEARTBEAT_SLICE_MS / 5);
    expect(sockets.map((ws) => ws.pings)).toEqual([1, 1, 1]);
    heartbeat.stop();
  });
});
