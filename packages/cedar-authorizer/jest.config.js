// `npm test -w @outpost/cedar-authorizer`: the package's own tests, alone (the root `npm test` runs them too).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  // jwks-rsa (under the middleware package) loads jose v6, ESM only: ts-jest compiles it.
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
  // The middleware package from its sources, as the repository's own tests read it.
  moduleNameMapper: { '^@outpost/express-authz$': '<rootDir>/../express-authz/src/index.ts' },
};
