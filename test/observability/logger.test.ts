import { spawn, spawnSync } from 'node:child_process';
import { LOG_BUFFER_FLUSH_BYTES } from '../../src/observability';
import { compiled } from '../helpers/compiled';

/** The logging child, compiled to plain JavaScript by test/build-once.js. */
const child = compiled('test/observability/fixtures/log-destination.ts');

function run(count: number, how: 'exit' | 'throw'): { lines: Record<string, unknown>[]; status: number | null } {
  const out = spawnSync(process.execPath, [child, String(count), how], { encoding: 'utf8', timeout: 30_000 });
  const lines = out.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, status: out.status };
}

describe('createLogger (buffered stdout)', () => {
  it('loses no line when the process exits with lines still buffered', () => {
    // Fewer bytes than one flush: without the exit handler nothing at all would be written.
    const { lines, status } = run(5, 'exit');
    expect(status).toBe(0);
    expect(JSON.stringify(lines).length).toBeLessThan(LOG_BUFFER_FLUSH_BYTES);
    expect(lines.map((l) => l.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it('writes every line of a long run in order, and the buffered lines of a crash', () => {
    const long = run(2_000, 'exit');
    expect(long.lines.map((l) => l.i)).toEqual(Array.from({ length: 2_000 }, (_v, i) => i));
    const crash = run(3, 'throw');
    expect(crash.status).not.toBe(0);
    expect(crash.lines.map((l) => l.i)).toEqual([0, 1, 2]);
  });

  it('writes a line of a quiet process within the flush interval, without exit or a full batch', async () => {
    // The child stays alive: only the timer can write its one line. The wait is for the line.
    const proc = spawn(process.execPath, [child, '1', 'stay'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = '';
        proc.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out);
        });
        proc.on('exit', (code) => reject(new Error(`the child exited (${String(code)}) before writing`)));
      });
      expect(JSON.parse(first.trim())).toMatchObject({ msg: 'line', i: 0 });
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill('SIGKILL');
    }
  });

  it('still redacts credentials', () => {
    const { lines } = run(1, 'exit');
    expect(lines[0]).toMatchObject({ name: 'log-test', msg: 'line', i: 0 });
    expect(lines[0]).not.toHaveProperty('token');
  });
});
