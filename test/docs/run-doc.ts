/**
 * Runs the commands of Markdown documents verbatim, as a reader pastes them, in one shell: in a
 * copy of the checkout (test/helpers/checkout-copy.ts) and in namespaces of its own — its own
 * loopback, so the stack takes its default ports whatever else runs on the machine, and its own
 * process tree, so nothing a document starts outlives the run. Every `sh` block must succeed
 * (or exit as its `docs-test` comment says) and print what its comment expects; see doc-blocks.ts.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCheckout } from '../helpers/checkout-copy';
import { docSteps, type DocStep } from './doc-blocks';

/** How long one background command may take to print its ready text (a first build included). */
const READY_WAIT_S = 240;
/** How long a background command may take to stop after Ctrl-C. */
const STOP_WAIT_S = 30;

export interface StepResult {
  step: DocStep;
  /** What the step printed (a background step: its terminal), or undefined when the run ended before it. */
  output?: string;
}

export interface DocRun {
  /** Exit status of the whole run: 0 when every step ran as its document says. */
  status: number | null;
  steps: StepResult[];
  /** Everything the run printed, for the failure message. */
  transcript: string;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The driver: one bash script that runs every step in order and marks where each begins. */
export function driverScript(steps: readonly DocStep[], logs: string): string {
  const out: string[] = [
    'set -eo pipefail',
    'exec 2>&1',
    `__logs=${quote(logs)}`,
    '__bgs=()',
    `__stop() {
  [ \${#__bgs[@]} -gt 0 ] || { echo "@@docs-test: nothing to stop"; return 1; }
  local pid=\${__bgs[-1]}
  unset '__bgs[-1]'
  kill -INT -- "-$pid" 2>/dev/null || true
  for __i in $(seq 1 ${STOP_WAIT_S * 10}); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then echo "@@docs-test: a background command did not stop within ${STOP_WAIT_S} s of Ctrl-C"; kill -KILL -- "-$pid"; return 1; fi
  wait "$pid" 2>/dev/null || true
}`,
    `__stop_all() {
  while [ \${#__bgs[@]} -gt 0 ]; do __stop || true; done
}`,
    `__wait_for() {
  local log="$__logs/step-$1.log" pid=\${__bgs[-1]}
  for __i in $(seq 1 ${READY_WAIT_S * 10}); do
    if grep -qF -- "$2" "$log"; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then echo "@@docs-test: it exited before printing \\"$2\\""; unset '__bgs[-1]'; return 1; fi
    sleep 0.1
  done
  echo "@@docs-test: no \\"$2\\" within ${READY_WAIT_S} s"; return 1
}`,
    "trap '__stop_all' EXIT",
  ];
  steps.forEach((step, index) => {
    out.push(`echo '@@docs-step ${index}'`);
    switch (step.kind) {
      case 'skip':
        break;
      case 'stop':
        out.push('__stop');
        break;
      case 'background':
        out.push(`setsid bash "$__logs/step-${index}.sh" > "$__logs/step-${index}.log" 2>&1 < /dev/null &`, '__bgs+=($!)', `__wait_for ${index} ${quote(step.until)}`);
        break;
      case 'run':
        if (step.exit === 0) out.push(step.code);
        else out.push('set +e', '(', 'set -e', step.code, ')', '__status=$?', 'set -e', `if [ "$__status" != ${step.exit} ]; then echo "@@docs-test: exit status $__status, not ${step.exit}"; exit 1; fi`);
        break;
    }
  });
  out.push("echo '@@docs-done'");
  return `${out.join('\n')}\n`;
}

/**
 * Runs `files` (paths under the checkout, in reading order) as one session in a fresh copy of the
 * checkout, removed afterwards: the project as a clone has it, without the apps a reader of these
 * documents scaffolded in the checkout and has not committed (the documents scaffold them again).
 */
export function runDocs(files: readonly string[], options: { timeoutMs: number }): DocRun {
  const copy = copyCheckout('outpost-docs-', { dist: true, withoutUntrackedApps: true });
  try {
    const steps = files.flatMap((file) => docSteps(readFileSync(join(copy, file), 'utf8'), file));
    return runSteps(steps, copy, options);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Runs `steps` in one shell in `cwd`, in namespaces of its own. */
export function runSteps(steps: readonly DocStep[], cwd: string, options: { timeoutMs: number }): DocRun {
  const logs = mkdtempSync(join(tmpdir(), 'outpost-docs-logs-'));
  try {
    steps.forEach((step, index) => {
      if (step.kind === 'background') writeFileSync(join(logs, `step-${index}.sh`), `${step.code}\n`);
    });
    const driver = join(logs, 'driver.sh');
    writeFileSync(driver, driverScript(steps, logs));
    // Own network (loopback only), own pid namespace: its first process is the driver, and the
    // kernel ends everything in it when the driver ends (or is killed at the time-out).
    const user = process.getuid?.() === 0 ? [] : ['--map-root-user'];
    // Its output goes through a pipe of its own (`| cat`) into a file: Node's pipes are sockets,
    // which `tee /dev/stderr` cannot open, and a file opened again through /dev/stderr would be
    // truncated; a pipe behaves as a terminal does.
    const transcriptFile = join(logs, 'transcript.log');
    const out = openSync(transcriptFile, 'w');
    let run;
    try {
      run = spawnSync(
        'unshare',
        [...user, '--net', '--pid', '--fork', '--kill-child', '--mount-proc', 'bash', '-c', 'set -o pipefail; ip link set lo up && bash "$0" 2>&1 | cat', driver],
        {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? logs, LANG: 'C.UTF-8' },
          stdio: ['ignore', out, out],
          timeout: options.timeoutMs,
          killSignal: 'SIGKILL',
        },
      );
    } finally {
      closeSync(out);
    }
    const transcript = `${readFileSync(transcriptFile, 'utf8')}${run.error ? `\n@@docs-test: ${run.error.message}` : ''}`;
    const segments = new Map<number, string>();
    const parts = transcript.replace('@@docs-done\n', '').split(/@@docs-step (\d+)\n/);
    for (let i = 1; i < parts.length; i += 2) segments.set(Number(parts[i]), parts[i + 1]!);
    const results = steps.map((step, index): StepResult => {
      if (!segments.has(index)) return { step };
      if (step.kind !== 'background') return { step, output: segments.get(index) };
      let output = '';
      try {
        output = readFileSync(join(logs, `step-${index}.log`), 'utf8');
      } catch {
        // never started
      }
      return { step, output: `${output}${segments.get(index)}` };
    });
    const done = transcript.includes('@@docs-done\n');
    return { status: done ? run.status : (run.status ?? 1) || 1, steps: results, transcript };
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
}

/** Where a run went wrong, for the test's failure message: the failing step and its output. */
export function describeRun(run: DocRun): string[] {
  const problems: string[] = [];
  const reached = run.steps.filter((r) => r.output !== undefined);
  const last = reached.at(-1);
  if (run.status !== 0 && last) {
    problems.push(`${last.step.file}:${last.step.line} failed (run status ${run.status}):\n${'code' in last.step ? last.step.code : '(stop)'}\n--- output ---\n${last.output}`);
  }
  for (const { step, output } of reached) {
    if (step.kind !== 'run' || output === undefined) continue;
    for (const text of step.expect) {
      if (!output.includes(text)) problems.push(`${step.file}:${step.line}: the output does not hold "${text}":\n${step.code}\n--- output ---\n${output}`);
    }
  }
  if (run.status !== 0 && !last) problems.push(`the run ended before its first step:\n${run.transcript}`);
  return problems;
}
