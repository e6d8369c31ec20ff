// A Jest reporter that ends the run with one line counting what ran, e.g.
// "1645 tests in 151 files passed in 349 s", or "2 of 1645 tests failed (in 1 of 151 files), in 349 s",
// so the outcome of `npm test` can be read without scrolling past ~150 PASS lines. It runs
// alongside Jest's default reporter (jest.config.js); plain JavaScript because Jest loads
// reporters with Node's own require.
'use strict';
const { writeSync } = require('node:fs');

/** "1 test", "2 tests". */
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The one line for Jest's aggregated results, `seconds` after the run started. */
function summarize(results, seconds) {
  const { numTotalTests, numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
  const { numTotalTestSuites, numFailedTestSuites, numRuntimeErrorTestSuites } = results;
  const time = `in ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const notRun = [numPendingTests > 0 && `${numPendingTests} skipped`, numTodoTests > 0 && `${numTodoTests} todo`].filter(Boolean);
  const interrupted = results.wasInterrupted ? 'interrupted: ' : '';
  const failed = numFailedTests > 0 || numFailedTestSuites > 0 || results.snapshot.failure;
  if (!failed) {
    return `${interrupted}${count(numPassedTests, 'test')} in ${count(numTotalTestSuites, 'file')} passed${notRun.map((n) => `, ${n}`).join('')}${notRun.length > 0 ? ',' : ''} ${time}`;
  }
  const filesWithFailures = numFailedTestSuites - numRuntimeErrorTestSuites;
  const parts = [
    numFailedTests > 0 && `${numFailedTests} of ${count(numTotalTests, 'test')} failed (in ${filesWithFailures} of ${count(numTotalTestSuites, 'file')})`,
    numFailedTests === 0 && filesWithFailures > 0 && `${filesWithFailures} of ${count(numTotalTestSuites, 'file')} failed`,
    numRuntimeErrorTestSuites > 0 && `${numRuntimeErrorTestSuites} of ${count(numTotalTestSuites, 'file')} could not run`,
    results.snapshot.failure && 'snapshots failed',
    ...notRun,
  ].filter(Boolean);
  return `${interrupted}${parts.join(', ')}, ${time}`;
}

/** Prints `summarize`'s line after everything Jest prints at the end of a run. */
class CountReporter {
  onRunComplete(_testContexts, results) {
    const line = summarize(results, (Date.now() - results.startTime) / 1000);
    let printed = false;
    const print = () => {
      if (printed) return;
      printed = true;
      process.off('exit', print);
      writeSync(process.stderr.fd, `${line}\n`);
    };
    // Jest adds its own summary reporter after the custom ones, so it prints after this
    // method returns: wait for the next turn of the event loop. A run stopped by --bail
    // exits before that turn, hence the 'exit' fallback, and Jest's exit silences
    // process.stderr.write, hence writeSync.
    setImmediate(print);
    process.once('exit', print);
  }
}

module.exports = CountReporter;
module.exports.summarize = summarize;
