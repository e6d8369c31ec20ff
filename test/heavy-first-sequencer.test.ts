// The sequencer puts the known-slow files first only when Jest has no timings of its own.
import { join } from 'node:path';

const HeavyFirstSequencer = require('./heavy-first-sequencer.js') as new (options: { contexts: unknown[]; globalConfig: unknown }) => {
  sort(tests: unknown[]): { path: string }[];
  /** Jest's timings of earlier runs, by context: path → [1 passed / 0 failed, ms]. */
  _cache: Map<unknown, Record<string, [number, number]>>;
};

const root = join(__dirname, '..');
const context = { config: { cacheDirectory: join(root, '.no-such-cache'), name: 'outpost' }, hasteFS: { getSize: (path: string) => (path.endsWith('big.test.ts') ? 10_000 : 100) } };
const test = (file: string, duration?: number) => ({ path: join(root, file), context, ...(duration === undefined ? {} : { duration }) });

describe('heavy-first test sequencer', () => {
  const sequencer = new HeavyFirstSequencer({ contexts: [context], globalConfig: {} });
  beforeEach(() => sequencer._cache.clear());

  it('starts the known-slow files first on a run without timings, the rest by size as Jest does', () => {
    const order = sequencer.sort([test('test/a/big.test.ts'), test('test/a/small.test.ts'), test('test/scripts/new-app-keeps-suite-green.test.ts'), test('test/docs/guide-commands.test.ts')]);
    expect(order.map((t) => t.path.slice(root.length + 1))).toEqual([
      'test/docs/guide-commands.test.ts',
      'test/scripts/new-app-keeps-suite-green.test.ts',
      'test/a/big.test.ts',
      'test/a/small.test.ts',
    ]);
  });

  it("keeps Jest's order, longest first, once Jest has timings of its own", () => {
    sequencer._cache.set(context, {
      [join(root, 'test/a/big.test.ts')]: [1, 9_000],
      [join(root, 'test/a/small.test.ts')]: [1, 100],
      [join(root, 'test/docs/guide-commands.test.ts')]: [1, 5_000],
    });
    const order = sequencer.sort([test('test/a/small.test.ts'), test('test/docs/guide-commands.test.ts'), test('test/a/big.test.ts')]);
    expect(order.map((t) => t.path.slice(root.length + 1))).toEqual(['test/a/big.test.ts', 'test/docs/guide-commands.test.ts', 'test/a/small.test.ts']);
  });
});
