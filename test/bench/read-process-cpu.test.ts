import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpuMsOf, parseStat, processTree, treeCpuMs } from '../../scripts/bench/lib/read-process-cpu';

const started: ChildProcess[] = [];

/** Starts `sh -c script` in its own process group and resolves with its first line of output. */
async function shell(script: string): Promise<{ child: ChildProcess; firstLine: string }> {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.push(child);
  const firstLine = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('\n')) resolve(output.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`sh exited (${code}) before printing a line`)));
  });
  return { child, firstLine };
}

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGKILL'); // the group this test started: the shell and what it ran
    await exited;
  }
});

describe('parseStat', () => {
  it('counts fields from the last parenthesis, whatever the command name holds', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const stat = parseStat('4242 (post) gres: x) S 17 4242 4242 0 -1 4194560 10 0 0 0 123 45 600 7 20 0 1 0');
    expect(stat).toEqual({ pid: 4242, ppid: 17, ownMs: 1680, reapedChildrenMs: 6070 });
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseStat('no name here')).toThrow('not a /proc/<pid>/stat line');
  });
});

describe('processTree', () => {
  it('finds a child and its child, and not another process of the same name', async () => {
    const { child, firstLine } = await shell('sleep 60 & echo $!; wait');
    const grandchild = Number(firstLine);
    const unrelated = await shell('echo $$; exec sleep 60');
    const unrelatedSleep = Number(unrelated.firstLine);

    const tree = processTree([child.pid!]);
    expect(tree.sort((a, b) => a - b)).toEqual([child.pid!, grandchild].sort((a, b) => a - b));
    expect(tree).not.toContain(unrelatedSleep);
    expect(tree).not.toContain(process.pid);
  });

  it('leaves out roots that are gone', () => {
    expect(processTree([2 ** 22 + 1])).toEqual([]); // above Linux's largest pid
  });
});

describe('treeCpuMs', () => {
  it("adds a living grandchild's CPU and the CPU of a child that exited and was reaped", async () => {
    // Each node burns at least 300 ms of its own CPU clock (not wall time, which a loaded
    // machine stretches); the second stays alive and prints its pid.
    const burn = 'const t=process.cpuUsage();while(process.cpuUsage(t).user<300000);';
    const { child, firstLine } = await shell(`node -e '${burn}'; node -e '${burn}console.log(process.pid);setInterval(()=>{},1000)'`);
    const living = cpuMsOf(Number(firstLine));
    expect(living).toBeGreaterThanOrEqual(290); // /proc counts in ticks of 10 ms
    expect(cpuMsOf(child.pid!)).toBeLessThan(100); // the shell itself hardly runs
    // The first node is gone; its CPU is in the shell's reaped-children time.
    expect(treeCpuMs([child.pid!])).toBeGreaterThanOrEqual(living + 290);
  });

  it('counts nothing for a root that is gone', () => {
    expect(treeCpuMs([2 ** 22 + 1])).toBe(0);
    expect(cpuMsOf(2 ** 22 + 1)).toBe(0);
  });
});
