import { MissingStateError } from './missing-state-error';
import { ScriptError } from './script-error';

/** Runs a script's main function: a {@link ScriptError} prints one line and exits 1; anything else prints its stack. */
export async function runScript(name: string, main: () => Promise<void> | void): Promise<void> {
  try {
    await main();
  } catch (err) {
    const message = err instanceof MissingStateError ? await err.explain() : err instanceof ScriptError ? err.message : undefined;
    console.error(message === undefined ? err : `${name}: ${message}`);
    process.exitCode = 1;
  }
}
