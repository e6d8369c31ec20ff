/**
 * Every npm script that runs one of our compiled entries answers `--help` with its usage, and
 * an unknown option with an error naming it, and in both cases does nothing else: nothing
 * appears in its data directory, nothing is printed but the usage or the error. The scripts
 * are read from package.json, so a script added there without a command line fails here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** The scripts that run no entry of ours: the compiler, Jest and the source watcher. */
const NOT_ENTRIES = new Set(['build', 'test', 'typecheck', 'dev', 'test:browser']);

/** A script that ignored `--help` and started work (the stack, a bench) is stopped after this. */
const RUN_LIMIT_MS = 15_000;

const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const entries = Object.entries(scripts)
  .filter(([name]) => !NOT_ENTRIES.has(name))
  .map(([name, command]) => ({ name, entry: /\bnode (dist\/\S+\.js)(?=\s|$)/.exec(command)?.[1] }));

/** The environment of every run: the caller's, without servers a script could reach and change. */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'DATABASE_URL' && key !== 'REDIS_URL'));

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/**
 * Runs `node <entry> ...args` with OUTPOST_DATA_DIR=`dataDir`, in a process group of its own so
 * that whatever it started is killed with it if it runs past {@link RUN_LIMIT_MS}.
 */
function run(entry: string, args: readonly string[], dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, entry), ...args], {
      cwd: root,
      env: { ...baseEnv, OUTPOST_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }, RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, timedOut });
    });
  });
}

/** How a person types the script, as its usage line must begin: `npm start`, `npm run relay-exec`, `npm run -s token`. */
const usageLine = (name: string) => new RegExp(`^Usage: npm (run (-s )?)?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `);

describe('npm scripts on the command line', () => {
  const dirs: string[] = [];
  const emptyDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-cli-help-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(() => {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  }, 180_000);
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the scripts in package.json', () => {
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(['start', 'rotate-key', 'demo', 'cluster', 'config:docs', 'test:on-node', 'bench:stress', 'bench:fair']));
  });

  it.each(entries)('$name: --help prints its usage and does nothing; an unknown option is refused', async ({ name, entry }) => {
    expect({ name, entry }).toEqual({ name, entry: expect.stringMatching(/^dist\/.+\.js$/) });
    const [helpDir, unknownDir] = [emptyDataDir(), emptyDataDir()];
    const [help, unknown] = await Promise.all([run(entry!, ['--help'], helpDir), run(entry!, ['--no-such-flag'], unknownDir)]);

    expect(help.timedOut).toBe(false);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(usageLine(name));
    expect(help.stdout).toMatch(/\nExample:\n {2}\S/);
    expect(readdirSync(helpDir)).toEqual([]);

    expect(unknown.timedOut).toBe(false);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("'--no-such-flag'");
    expect(unknown.stdout).toBe('');
    expect(readdirSync(unknownDir)).toEqual([]);
  }, 2 * RUN_LIMIT_MS);
});
