// The one line test/count-reporter.js prints at the end of `npm test`.
interface Counts {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numTotalTestSuites: number;
  numFailedTestSuites: number;
  numRuntimeErrorTestSuites: number;
  wasInterrupted: boolean;
  snapshot: { failure: boolean };
}
// A plain-JavaScript module (Jest loads reporters untransformed), so it has no types to import.
const { summarize } = require('./count-reporter') as { summarize: (results: Counts, seconds: number) => string };

const passing: Counts = {
  numTotalTests: 1645,
  numPassedTests: 1645,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  numTotalTestSuites: 151,
  numFailedTestSuites: 0,
  numRuntimeErrorTestSuites: 0,
  wasInterrupted: false,
  snapshot: { failure: false },
};

describe('the count line', () => {
  it('counts the tests and files that passed, and the whole seconds', () => {
    expect(summarize(passing, 349.4)).toBe('1645 tests in 151 files passed in 349 s');
  });

  it('keeps a tenth of a second for a short run, and says "1 test in 1 file"', () => {
    const one = { ...passing, numTotalTests: 1, numPassedTests: 1, numTotalTestSuites: 1 };
    expect(summarize(one, 0.42)).toBe('1 test in 1 file passed in 0.4 s');
  });

  it('counts failed tests and the files they are in', () => {
    const failing = { ...passing, numPassedTests: 1643, numFailedTests: 2, numFailedTestSuites: 1 };
    expect(summarize(failing, 349)).toBe('2 of 1645 tests failed (in 1 of 151 files), in 349 s');
  });

  it('counts files that could not run apart from files with failed tests', () => {
    const broken = { ...passing, numPassedTests: 1644, numFailedTests: 1, numFailedTestSuites: 3, numRuntimeErrorTestSuites: 2 };
    expect(summarize(broken, 349)).toBe('1 of 1645 tests failed (in 1 of 151 files), 2 of 151 files could not run, in 349 s');
    const onlyBroken = { ...passing, numFailedTestSuites: 1, numRuntimeErrorTestSuites: 1 };
    expect(summarize(onlyBroken, 349)).toBe('1 of 151 files could not run, in 349 s');
  });

  it('names a file that failed outside its tests (an afterAll that throws)', () => {
    expect(summarize({ ...passing, numFailedTestSuites: 1 }, 349)).toBe('1 of 151 files failed, in 349 s');
  });

  it('says when tests were skipped or the run was interrupted', () => {
    const skipped = { ...passing, numPassedTests: 1643, numPendingTests: 1, numTodoTests: 1 };
    expect(summarize(skipped, 349)).toBe('1643 tests in 151 files passed, 1 skipped, 1 todo, in 349 s');
    expect(summarize({ ...passing, wasInterrupted: true }, 349)).toBe('interrupted: 1645 tests in 151 files passed in 349 s');
  });
});
