import { setFlagsFromString } from 'node:v8';

/**
 * Has V8 compile Cedar's WebAssembly with its baseline compiler (Liftoff) only, never
 * TurboFan. For a process that validates policy images but does not decide in bulk — the
 * control plane and its relay. Measured on Node 20 (docs/architecture.md, "Memory of an idle
 * relay"): TurboFan's compilation of the 4.3 MB module leaves ~76 MB of freed compiler
 * memory in glibc's per-thread malloc arenas for the life of the process and takes ~1 s at
 * the first Cedar call; Liftoff-only code validates an image no slower we could measure. Call before the
 * first Cedar call (the bindings compile lazily, `cedar-engine.ts`); an edge, whose
 * decisions are its hot path, has Cedar compiled by TurboFan from the first call.
 */
export function useBaselineWasm(): void {
  // `--liftoff` too: loading the engine turned Liftoff off for the edges (`cedar-engine.ts`).
  setFlagsFromString('--liftoff');
  setFlagsFromString('--liftoff-only');
}
