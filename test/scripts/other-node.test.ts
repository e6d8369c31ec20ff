import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { headersFor } from '../../scripts/lib/node-runtime';
import { compiled } from '../helpers/compiled';

const root = join(__dirname, '..', '..');

/** Runs a compiled script with `--help`, as its npm script does: it must print its usage and do nothing else. */
function help(script: string) {
  return spawnSync(process.execPath, [compiled(script), '--help'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('running on another Node', () => {
  it('bench:stress --help prints its options and starts nothing', () => {
    const run = help('scripts/bench/bench-stress.ts');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run bench:stress -- \[options\]/);
    expect(run.stdout).toMatch(/--node <version>/);
    expect(run.stdout).not.toMatch(/Stress bench:/);
  });

  it('test:on-node --help prints its arguments and fetches nothing', () => {
    const run = help('scripts/test-on-node.ts');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run test:on-node -- \[options\] <version> \[jest-args\.\.\.\]/);
    expect(run.stdout).not.toMatch(/fetching|installing|jest .* on Node/);
  });

  it('compiles native modules for Node 24.19 and later against 24.18.1 headers (nodejs/node#65446), for every other Node against its own', () => {
    expect(headersFor('24.19.0')).toBe('24.18.1');
    expect(headersFor('24.21.0')).toBe('24.18.1');
    expect(headersFor('24.18.1')).toBe('24.18.1');
    expect(headersFor('24.2.0')).toBe('24.2.0');
    expect(headersFor('22.23.3')).toBe('22.23.3');
    expect(headersFor('26.10.0')).toBe('26.10.0');
  });
});
