import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { V8_INLINES_WASM_CALLS_UNSAFELY } from '../../packages/cedar-authorizer/src/cedar-engine';
import { compiled } from '../helpers/compiled';

// The crash that killed edges under mixed load (docs/architecture.md, "The V8 crash"),
// reproduced in a child process so that it can abort without taking Jest down.
const repro = join(__dirname, 'fixtures', 'inlined-wasm-call-deopt.js');
/** The engine as the edge runs it, compiled (test/build-once.js). */
const engine = compiled('packages/cedar-authorizer/src/cedar-engine.ts');

function runRepro(...args: string[]) {
  return spawnSync(process.execPath, [...args, repro], { encoding: 'utf8', timeout: 60_000 });
}

describe('the V8 lazy-deoptimization crash on inlined Wasm calls', () => {
  it('is real on this runtime exactly when the engine says so (the repro aborts on Node 20 and 22)', () => {
    const run = runRepro();
    if (V8_INLINES_WASM_CALLS_UNSAFELY) {
      expect(run.signal).toBe('SIGTRAP');
      expect(run.stderr).toMatch(/unreachable code/);
      expect(run.stderr).toMatch(/DoComputeBuiltinContinuation/);
    } else {
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^survived/);
    }
  });

  it('cannot happen in a process that loaded the Cedar engine', () => {
    const run = spawnSync(process.execPath, [repro, engine], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).not.toMatch(/unreachable code/);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^survived/);
  });
});
