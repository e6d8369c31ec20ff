// Cedar's own integration tests (cedar-policy/cedar-integration-tests) through Outpost's policy
// path — compilePolicyImage, then isAuthorized per request, as the edge decides — each answer
// compared with the decision, reasons and errors the test expects. Prints the score and every
// disagreement; exits 1 when there is one.
//
//   npm run conformance:cedar -- --suite test/fixtures/cedar-integration-tests
//   npm run conformance:cedar -- --corpus test/fixtures/cedar-integration-tests/corpus-tests.tar.gz
//
// --suite is a copy of the repository (its tests/ and sample-data/ folders); --corpus is its
// corpus-tests.tar.gz (read in memory) or the folder that archive unpacks to. How each test maps
// onto Outpost's path is described in scripts/lib/cedar-conformance.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { corpusTests, handWrittenTests, readTarGz, runCedarTest, score, type SuiteReader, type TestResult } from './lib/cedar-conformance';
import { runScript } from './lib/run-script';
import { scriptCommand, wholeNumber } from './lib/script-command';
import { ScriptError } from './lib/script-error';

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

function folderReader(root: string): SuiteReader {
  return (path) => {
    const file = join(root, path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
}

function report(label: string, results: readonly TestResult[], seconds: number, show: number): boolean {
  const s = score(results);
  const answered = s.requests - s.notLoadable;
  const pct = (n: number, of: number) => (of === 0 ? '0' : ((100 * n) / of).toFixed(2));
  console.log(
    `${label}: ${s.agrees + s.asCedarWasm}/${answered} requests answered as Cedar answers (${pct(s.agrees + s.asCedarWasm, answered)} %): ` +
      `${s.agrees} with the expected answer, ${s.asCedarWasm} with cedar-wasm's own differing one; ${s.disagrees} disagree`,
  );
  console.log(
    `${label}: validation verdicts ${s.validationAgrees + s.validationAsCedarWasm}/${s.tests} test files as Cedar's (${s.validationAgrees} as expected, ${s.validationAsCedarWasm} as cedar-wasm's own); ` +
      `${s.notLoaded} files whose policies Cedar's validator refuses are images Outpost refuses, so their ${s.notLoadable} requests are not loadable`,
  );
  console.log(`${label}: ${s.tests} test files, ${s.requests} requests, ${seconds.toFixed(1)} s`);
  if (s.unvalidated > 0) console.log(`${label}: ${s.unvalidated} requests ask for no request validation; Outpost validated them all the same`);
  // Why answers are cedar-wasm's rather than the expected ones, with a count each.
  const reasons = new Map<string, number>();
  for (const result of results) {
    if (result.validation === 'as cedar-wasm') reasons.set(`validation: ${(result.validationDetail ?? '').split(';')[0]}`, (reasons.get(`validation: ${(result.validationDetail ?? '').split(';')[0]}`) ?? 0) + 1);
    for (const request of result.requests) {
      if (request.outcome !== 'as cedar-wasm') continue;
      const why = (request.detail ?? '').split(': expected')[0] as string;
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
  }
  for (const [why, n] of reasons) console.log(`${label}: as cedar-wasm, ${n}× — ${why}`);
  let shown = 0;
  for (const result of results) {
    if (result.validation === 'disagrees' && shown++ < show) console.log(`  ${result.test}: ${result.validationDetail}`);
    for (const request of result.requests) {
      if (request.outcome === 'disagrees' && shown++ < show) console.log(`  ${result.test} "${request.description}": ${request.detail}`);
    }
  }
  if (shown > show) console.log(`  … and ${shown - show} more`);
  return s.disagrees === 0 && s.validationAgrees + s.validationAsCedarWasm === s.tests;
}

function run(label: string, tests: readonly string[], read: SuiteReader, show: number): boolean {
  if (tests.length === 0) throw new ScriptError(`${label}: no test files found`);
  const started = process.hrtime.bigint();
  const results = tests.map((t) => runCedarTest(t, read));
  return report(label, results, Number(process.hrtime.bigint() - started) / 1e9, show);
}

function main(options: { suite?: string; corpus?: string; show: number }): void {
  if (options.suite === undefined && options.corpus === undefined) throw new ScriptError('name --suite <dir>, --corpus <file|dir>, or both (--help for usage)');
  let ok = true;
  if (options.suite !== undefined) {
    if (!existsSync(join(options.suite, 'tests'))) throw new ScriptError(`${options.suite} has no tests/ folder: not a copy of cedar-integration-tests`);
    ok = run('hand-written tests', handWrittenTests(listFiles(options.suite)), folderReader(options.suite), options.show) && ok;
  }
  if (options.corpus !== undefined) {
    if (!existsSync(options.corpus)) throw new ScriptError(`${options.corpus}: no such file or folder`);
    let files: ReadonlyMap<string, string> | undefined;
    let read: SuiteReader;
    let paths: string[];
    if (statSync(options.corpus).isDirectory()) {
      paths = listFiles(options.corpus);
      read = folderReader(options.corpus);
    } else {
      files = readTarGz(readFileSync(options.corpus));
      paths = [...files.keys()];
      read = (path) => files?.get(path);
    }
    ok = run('corpus', corpusTests(paths), read, options.show) && ok;
  }
  if (!ok) process.exitCode = 1;
}

scriptCommand(
  'npm run conformance:cedar --',
  "run Cedar's integration tests (cedar-policy/cedar-integration-tests: the hand-written tests, the generated corpus, or both) through Outpost's policy path and compare every answer with the expected one; exits 1 on any disagreement",
  'npm run conformance:cedar -- --suite test/fixtures/cedar-integration-tests --corpus test/fixtures/cedar-integration-tests/corpus-tests.tar.gz',
)
  .option('--suite <dir>', "a copy of the cedar-integration-tests repository: runs its hand-written tests (tests/*/*.json, with sample-data/)")
  .option('--corpus <file|dir>', 'its generated corpus: corpus-tests.tar.gz, or the folder it unpacks to')
  .option('--show <n>', 'disagreements to print', wholeNumber(0, 1_000_000), 20)
  .action((options: { suite?: string; corpus?: string; show: number }) => runScript('conformance:cedar', () => main(options)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
