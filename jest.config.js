// jose v6, oauth4webapi, openid-client v6 and oidc-provider v9 ship ESM only; Jest's CommonJS runtime cannot load them untransformed,
// so ts-jest compiles them (allowJs) along with our TypeScript.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Browser tests need Chromium: `npm run test:browser` (jest.browser.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/browser/'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi|openid-client|oidc-provider)/)'],
  testTimeout: 20000,
  // Jest's per-file lines and summary, then one line counting the run (test/count-reporter.js).
  reporters: ['default', '<rootDir>/test/count-reporter.js'],
};
