import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Component } from '../../src/stack/components';
import { runComponent } from '../../src/stack/run-component';

const component: Component = {
  name: 'echo',
  label: 'echo',
  entry: 'echo',
  url: 'http://127.0.0.1:9',
  port: 9,
  portVar: 'ECHO_PORT',
  readyPath: '/',
  identity: { path: '/', matches: () => false },
};

describe('component log files', () => {
  let dir: string;
  let script: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-logs-'));
    script = join(dir, 'echo.js');
    writeFileSync(script, "process.stdout.write('user u1 signed in\\n');");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates <logDir>/<component>.log owner-only (0600) and narrows an older world-readable one', async () => {
    const logDir = join(dir, 'logs');
    mkdirSync(logDir, { mode: 0o700 }); // the launcher creates it
    const first = runComponent(component, script, logDir);
    await first.exited;
    expect(statSync(first.logFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.logFile, 'utf8')).toBe('user u1 signed in\n');

    chmodSync(first.logFile, 0o644);
    const second = runComponent(component, script, logDir);
    await second.exited;
    expect(statSync(second.logFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(second.logFile, 'utf8')).toBe('user u1 signed in\n'.repeat(2));
  });
});
