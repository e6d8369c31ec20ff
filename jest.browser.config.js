// Browser tests (`npm run test:browser`): they need Chromium, so they run apart from
// `npm test`. Same transform as jest.config.js.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = { ...base, roots: ['<rootDir>/test/browser'], testPathIgnorePatterns: [], testTimeout: 60000 };
