/** One of an object's named states; an object's states form a union discriminated by `name`. */
export interface NamedState {
  readonly name: string;
}

/** Which states each state may move to: the one table a {@link StateGate} checks. */
export type Transitions<S extends NamedState> = { readonly [N in S['name']]: readonly S['name'][] };

/**
 * An object's current state and its one gate, the way websockets/ws keeps `readyState`
 * (CONNECTING → OPEN → CLOSING → CLOSED): every move goes through {@link StateGate.moveTo},
 * which makes only the moves its table lists and refuses the rest. A class, so the methods live
 * once on its prototype: the relay holds one gate per connected edge.
 */
export class StateGate<S extends NamedState> {
  private current: S;

  constructor(
    private readonly transitions: Transitions<S>,
    initial: S,
  ) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  /** Moves to `next` when the table lets the current state go there; false, and no move, when it does not. */
  moveTo(next: S): boolean {
    const allowed: readonly string[] = this.transitions[this.current.name as S['name']];
    if (!allowed.includes(next.name)) return false;
    this.current = next;
    return true;
  }
}
