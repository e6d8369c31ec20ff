// Browser tests (`npm run test:browser`): they need Chromium, so they run apart from
// `npm test`. Same transform as jest.config.js.
const base = require('./jest.config');

/** @type {import('jest').Config} */
// Three workers, not npm test's four: each file drives a Chromium of its own beside its stack, and
// four at once on two cores were measured only for npm test's files.
module.exports = { ...base, roots: ['<rootDir>/test/browser'], testPathIgnorePatterns: [], testTimeout: 60000, maxWorkers: 3 };
