import { ScriptError } from './script-error';

/** Runs a script's main function: a {@link ScriptError} prints one line and exits 1; anything else prints its stack. */
export async function runScript(name: string, main: () => Promise<void> | void): Promise<void> {
  try {
    await main();
  } catch (err) {
    console.error(err instanceof ScriptError ? `${name}: ${err.message}` : err);
    process.exitCode = 1;
  }
}
