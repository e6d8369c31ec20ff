// jose v6, oauth4webapi, openid-client v6 and oidc-provider v9 ship ESM only; Jest's CommonJS runtime cannot load them untransformed,
// so ts-jest compiles them (allowJs) along with our TypeScript.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The packages' own tests (packages/*/test) run here too, and alone with `npm test -w`.
  roots: ['<rootDir>/test', '<rootDir>/packages'],
  // The packages from their sources, as tsconfig.json's `paths` reads them: one copy of their classes per test.
  moduleNameMapper: {
    '^@outpost/express-authz$': '<rootDir>/packages/express-authz/src/index.ts',
    '^@outpost/cedar-authorizer$': '<rootDir>/packages/cedar-authorizer/src/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  // Browser tests need Chromium: `npm run test:browser` (jest.browser.config.js).
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/browser/'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi|openid-client|oidc-provider)/)'],
  // A bound for a hang, not a speed target: a hook that starts a stack or compiles Cedar took
  // more than 20 s when a full run shared the 2 cores with three spinning processes (2026-11-28).
  testTimeout: 60000,
  // dist/ compiled once before any test: processes the tests start run it (test/helpers/compiled.ts).
  globalSetup: '<rootDir>/test/build-once.js',
  // Four workers on the 2-core machines this runs on (Jest's default there is one): much of a
  // test's time is spent waiting on the processes it starts, which other files' work fills.
  // Two workers took 389 s instead of 574 s on 2026-11-25; on 2026-11-28, four full runs
  // alternated took 351 and 360 s with two, 335 and 339 s with three; once the fixtures that run
  // as processes ran compiled (less CPU, more waiting), three took 333 and 304 s, four 301 and
  // 289 s, alternated, every test green each time (BENCHMARKS.md, "`npm test` wall time"). Every
  // test file is independent: its own servers on port 0, its own PostgreSQL/Redis, its own temp folders.
  maxWorkers: 4,
  // The slowest files first on a run without timings (a fresh clone): test/heavy-first-sequencer.js.
  testSequencer: '<rootDir>/test/heavy-first-sequencer.js',
  // Jest's per-file lines and summary, then one line counting the run (test/count-reporter.js).
  reporters: ['default', '<rootDir>/test/count-reporter.js'],
};
