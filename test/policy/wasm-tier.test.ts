import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { compiled } from '../helpers/compiled';

// docs/architecture.md, "Cedar's Wasm code": a process that loaded the Cedar engine keeps V8's
// default tiering (Liftoff first: cheaper to start, see there), and the control plane asks for
// Liftoff only.
const probe = join(__dirname, 'fixtures', 'wasm-tier-probe.js');
// Compiled (test/build-once.js), as the edge and the control plane run them.
const engine = compiled('packages/cedar-authorizer/src/cedar-engine.ts');
const policyModule = compiled('src/policy/index.ts');

/** The compiler of the probe's Wasm function, in a child that loaded `first` and called its `call` export before. */
function tierAfterLoading(first?: string, call?: string): { liftoff: boolean; turbofan: boolean } {
  const args = first === undefined ? [probe] : [probe, first, ...(call === undefined ? [] : [call])];
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', ...args], { encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as { liftoff: boolean; turbofan: boolean };
}

describe("Cedar's Wasm code", () => {
  it('would be compiled by Liftoff first in a process without the engine (so the probe tells them apart)', () => {
    expect(tierAfterLoading()).toEqual({ liftoff: true, turbofan: false });
  });

  it('is compiled by Liftoff first once the engine is loaded: the engine does not turn Liftoff off', () => {
    expect(tierAfterLoading(engine)).toEqual({ liftoff: true, turbofan: false });
  });

  it('is compiled by Liftoff only in a process that asked for baseline Wasm after loading the engine (the control plane)', () => {
    expect(tierAfterLoading(policyModule, 'useBaselineWasm')).toEqual({ liftoff: true, turbofan: false });
  });
});
