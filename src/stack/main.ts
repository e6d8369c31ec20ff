// Starts the whole Outpost stack on loopback: one process per component, in order,
// each awaited until healthy, then prints a banner with what to try next.
//
//   npm start            # compiled (fast start)
//   npm run dev          # from source, restarts on change
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config';
import { banner } from './banner';
import { stackComponents, type Component } from './components';
import { entryFile, runComponent, waitUntilReady, type RunningComponent } from './run-component';

async function main(): Promise<void> {
  const config = loadConfig();
  const logDir = join(config.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });

  const running: RunningComponent[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const r of [...running].reverse()) r.child.kill('SIGTERM');
    await Promise.race([Promise.all(running.map((r) => r.exited)), new Promise((r) => setTimeout(r, 8000))]);
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  const started: Component[] = [];
  for (const component of stackComponents(config)) {
    const file = entryFile(component);
    if (!file) continue;
    process.stdout.write(`starting ${component.label} … `);
    const r = runComponent(component, file, logDir);
    running.push(r);
    // A component that dies later takes the stack down with it, loudly.
    void r.exited.then((code) => {
      if (stopping) return;
      console.error(`\n${component.label} stopped (exit code ${String(code)}); see ${r.logFile}. Stopping the stack.`);
      void stopAll(1);
    });
    try {
      await waitUntilReady(r, 30_000);
    } catch (err) {
      console.error(`failed\n${(err as Error).message}`);
      console.error(`\nIs port ${new URL(component.url).port} already in use? Ports and URLs are set by environment variables (see .env.example).`);
      await stopAll(1);
      return;
    }
    console.log('ready');
    started.push(component);
  }
  console.log(banner(config, started));
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
