import Module from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/**
 * True on the V8 versions (Node 20: 11.3, Node 22: 12.4) whose optimizing compiler cannot
 * lazily deoptimize a function while an inlined call into a Wasm function that returns a
 * JS value (`externref`) is running: the process dies with "Fatal error … unreachable code"
 * in `Deoptimizer::DoComputeBuiltinContinuation`. Fixed in V8 13 (Node 24).
 */
export const V8_INLINES_WASM_CALLS_UNSAFELY = Number(process.versions.v8.split('.')[0]) < 13;

// Every Cedar call is such a call (it returns the answer as a JS object, and Cedar calls back
// into JS to build it, which can invalidate the caller's optimized code). On the affected
// versions we turn that one inlining off before any caller is optimized: it costs nothing we
// can measure against a decision's ~25 µs inside Cedar (docs/architecture.md, "The V8 crash").
if (V8_INLINES_WASM_CALLS_UNSAFELY) setFlagsFromString('--no-turbo-inline-js-wasm-calls');

// V8 compiles a Wasm function when it is first called, with Liftoff (quick to compile, slow
// code), and recompiles it with TurboFan once it has run enough: the default, kept. TurboFan
// from the first call (`--no-liftoff`) made an edge's later discoveries cheaper (~4 against
// 17–28 ms) and its process ~50 MB smaller, but cost every process ~0.9 s of CPU on its first
// image, before it could serve: 3 of the ~10 s of CPU `npm start` spent to its banner
// (docs/architecture.md, "Cedar's Wasm code", has the figures of both).
//
// "Run enough" is a budget per function (roughly bytes of code executed), 1.8 MB on Node 20's
// V8 and 13 MB on Node 26's. Cedar's schema parser and validator exhaust it on an edge's very
// first image, so V8 recompiled most of them with TurboFan in the background (~0.7 s of CPU
// per edge, on every start) for code that runs once per image. With this budget the first
// image and its tests run in Liftoff code alone; the decision path, which runs thousands of
// times, still reaches TurboFan (after a few thousand decisions instead of a few hundred).
// Read when the bindings compile their module (`loadBindings`), so set here, before any.
export const WASM_TIERING_BUDGET = 90_000_000;
setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);

/** The Cedar bindings (`@cedar-policy/cedar-wasm/nodejs`), as one loaded instance. */
export type CedarBindings = typeof import('@cedar-policy/cedar-wasm/nodejs');

/**
 * Cedar ran out of stack or trapped inside its WebAssembly instance. The instance has
 * been replaced; the call that failed is reported, never retried.
 */
export class CedarEngineError extends Error {
  constructor(readonly operation: string) {
    super(`Cedar could not process this input (${operation}); the engine was reset`);
    this.name = new.target.name;
  }
}

const bindingsFile = require.resolve('@cedar-policy/cedar-wasm/nodejs');

/**
 * Loads a fresh copy of the bindings. The package instantiates one WebAssembly instance
 * when its file is evaluated and a trap leaves that instance's memory corrupt, so a new
 * instance means evaluating the file again in a new module (bypassing every module cache).
 */
function loadBindings(): CedarBindings {
  const fresh = new Module(bindingsFile) as Module & { _compile(source: string, file: string): void };
  fresh.filename = bindingsFile;
  fresh.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(bindingsFile));
  fresh._compile(readFileSync(bindingsFile, 'utf8'), bindingsFile);
  return fresh.exports as CedarBindings;
}

let bindings: CedarBindings | undefined;
let generation = 0;
let healthy = true;
const resetHooks: Array<(cedar: CedarBindings) => void> = [];

/**
 * A wasm trap (`RuntimeError: memory access out of bounds`, `unreachable`) or a stack
 * overflow (`RangeError`). Checked by name: the bindings may run in another realm (a
 * test sandbox), where `instanceof` against this realm's classes is false.
 */
function isEngineFault(err: unknown): boolean {
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return name === 'RuntimeError' || name === 'RangeError';
}

/**
 * Runs one Cedar call. Cedar reports bad input as a `failure` answer; anything it throws
 * is an engine fault: the instance is discarded, a fresh one is loaded, every reset hook
 * (the pre-parsed registry re-parses the images still held) runs on it, and the call
 * fails with {@link CedarEngineError}. If a hook fails the engine is marked unhealthy,
 * so readiness probes stop sending traffic to a process that can no longer decide.
 */
export function withCedar<T>(operation: string, call: (cedar: CedarBindings) => T): T {
  bindings ??= loadBindings();
  try {
    return call(bindings);
  } catch (err) {
    if (!isEngineFault(err)) throw err;
    resetEngine();
    throw new CedarEngineError(operation);
  }
}

/** Replaces the instance and re-runs every reset hook on the new one. */
export function resetEngine(): void {
  bindings = loadBindings();
  generation += 1;
  healthy = true;
  for (const hook of resetHooks) {
    try {
      hook(bindings);
    } catch {
      healthy = false;
    }
  }
}

/** Registers work to redo on each fresh instance (state Cedar kept in wasm memory). */
export function onEngineReset(hook: (cedar: CedarBindings) => void): void {
  resetHooks.push(hook);
}

/** Marks the engine unable to decide (a reset hook found state it cannot restore). */
export function markEngineUnhealthy(): void {
  healthy = false;
}

/** False when the last reset could not restore every held image: stop serving. */
export function isEngineHealthy(): boolean {
  return healthy;
}

/** How many times the instance has been replaced (for metrics and tests). */
export function engineGeneration(): number {
  return generation;
}
