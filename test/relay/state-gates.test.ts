/**
 * The named states of an edge session and of the relay, and their one gate each: every move
 * the tables list is taken, every other is refused and leaves the state where it was, and the
 * frame side of a session's gate says what each state does with each frame.
 */
import type { EdgeMessage } from '../../src/relay-protocol';
import { EDGE_SESSION_TRANSITIONS, frameAction, type EdgeSessionState } from '../../src/relay/edge-session-state';
import { RELAY_TRANSITIONS, RelayState, type RelayPhase } from '../../src/relay/relay-state';
import { StateGate, type NamedState, type Transitions } from '../../src/relay/state-gate';

const KEY = { tenantId: 't-1', instanceId: 'edge-1' };
const SESSION_STATES: readonly EdgeSessionState[] = [
  { name: 'awaiting-register' },
  { name: 'registering' },
  { name: 'claiming', key: KEY },
  { name: 'registered', key: KEY },
  { name: 'closed', key: KEY },
];
const RELAY_PHASES: readonly RelayPhase[] = [{ name: 'running' }, { name: 'closing', done: Promise.resolve() }, { name: 'closed' }];
const FRAME_TYPES: readonly EdgeMessage['type'][] = ['register', 'status', 'command_result', 'sample_chunk', 'try_result', 'decisions'];

/** Every (from, to) pair of states, split by whether the table lists it. */
function moves<S extends NamedState>(states: readonly S[], table: Transitions<S>, listed: boolean): [string, string, S, S][] {
  return states.flatMap((from) =>
    states
      .filter((to) => (table[from.name as S['name']] as readonly string[]).includes(to.name) === listed)
      .map((to): [string, string, S, S] => [from.name, to.name, from, to]),
  );
}

describe('an edge session’s gate', () => {
  it('has the moves of the protocol and no other: awaiting-register → registering → claiming → registered, and any of them → closed', () => {
    expect(moves(SESSION_STATES, EDGE_SESSION_TRANSITIONS, true).map(([from, to]) => `${from} → ${to}`)).toEqual([
      'awaiting-register → registering',
      'awaiting-register → closed',
      'registering → claiming',
      'registering → closed',
      'claiming → registered',
      'claiming → closed',
      'registered → closed',
    ]);
  });

  it.each(moves(SESSION_STATES, EDGE_SESSION_TRANSITIONS, true))('moves %s → %s', (_from, _to, from, to) => {
    const gate = new StateGate(EDGE_SESSION_TRANSITIONS, from);
    expect(gate.moveTo(to)).toBe(true);
    expect(gate.state).toBe(to);
  });

  it.each(moves(SESSION_STATES, EDGE_SESSION_TRANSITIONS, false))('refuses %s → %s and stays', (_from, _to, from, to) => {
    const gate = new StateGate(EDGE_SESSION_TRANSITIONS, from);
    expect(gate.moveTo(to)).toBe(false);
    expect(gate.state).toBe(from);
  });

  it('refuses any frame but register before register: not_registered', () => {
    expect(FRAME_TYPES.map((type) => [type, frameAction('awaiting-register', type)])).toEqual([
      ['register', 'register'],
      ...FRAME_TYPES.slice(1).map((type) => [type, 'not_registered']),
    ]);
  });

  it('holds every frame behind a register being stored or claimed, a second register included', () => {
    for (const state of ['registering', 'claiming'] as const) expect(FRAME_TYPES.map((type) => frameAction(state, type))).toEqual(FRAME_TYPES.map(() => 'wait'));
  });

  it('refuses a second register once registered (already_registered) and handles every other frame', () => {
    expect(FRAME_TYPES.map((type) => frameAction('registered', type))).toEqual(['already_registered', ...FRAME_TYPES.slice(1).map(() => 'handle')]);
  });

  it('drops anything after close', () => {
    expect(FRAME_TYPES.map((type) => frameAction('closed', type))).toEqual(FRAME_TYPES.map(() => 'drop'));
  });
});

describe('the relay’s gate', () => {
  it('has one way through: running → closing → closed', () => {
    expect(moves(RELAY_PHASES, RELAY_TRANSITIONS, true).map(([from, to]) => `${from} → ${to}`)).toEqual(['running → closing', 'closing → closed']);
  });

  it.each(moves(RELAY_PHASES, RELAY_TRANSITIONS, false))('refuses %s → %s and stays', (_from, _to, from, to) => {
    const gate = new StateGate(RELAY_TRANSITIONS, from);
    expect(gate.moveTo(to)).toBe(false);
    expect(gate.state).toBe(from);
  });

  it('lets requests through only while running: 503 relay_closing once closing, and once closed', () => {
    const state = new RelayState();
    expect(() => state.checkRunning()).not.toThrow();
    expect(state.moveTo({ name: 'closing', done: Promise.resolve() })).toBe(true);
    expect(() => state.checkRunning()).toThrow(expect.objectContaining({ status: 503, code: 'relay_closing' }));
    expect(state.moveTo({ name: 'running' })).toBe(false);
    expect(state.moveTo({ name: 'closed' })).toBe(true);
    expect(() => state.checkRunning()).toThrow(expect.objectContaining({ status: 503, code: 'relay_closing' }));
    expect(state.phase).toEqual({ name: 'closed' });
  });
});
