// `npm test -w @outpost/express-authz`: the package's own tests, alone (the root `npm test` runs them too).
// jwks-rsa v4 loads jose v6, which ships ESM only: ts-jest compiles it (allowJs) with the tests.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
};
