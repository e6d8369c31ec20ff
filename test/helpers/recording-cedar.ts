import type { CedarBindings } from '../../packages/cedar-authorizer/src/cedar-engine';

/** One call into the Cedar bindings: the binding's name and its arguments. */
export interface CedarCall {
  readonly name: string;
  readonly args: readonly unknown[];
}

/**
 * `packages/cedar-authorizer/src/cedar-engine` with every binding `withCedar` hands out recording its calls into
 * `calls()`: for `jest.mock('…/../../packages/cedar-authorizer/src/cedar-engine', () => recordingCedarEngine(() => mockCalls))`.
 * The array is read at each call, not when the mock is made (jest hoists the mock above it).
 */
export function recordingCedarEngine(calls: () => CedarCall[]): typeof import('../../packages/cedar-authorizer/src/cedar-engine') {
  const actual = jest.requireActual<typeof import('../../packages/cedar-authorizer/src/cedar-engine')>('../../packages/cedar-authorizer/src/cedar-engine');
  const recording = (cedar: CedarBindings): CedarBindings =>
    new Proxy(cedar, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls().push({ name: String(name), args });
          return (value as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
  return { ...actual, withCedar: (operation, call) => actual.withCedar(operation, (cedar) => call(recording(cedar))) };
}
