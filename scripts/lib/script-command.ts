import { Command, InvalidArgumentError } from 'commander';

/**
 * The command line of an npm script, as commander parses it: `--help` prints `Usage: <usage>
 * [options] …`, what the script does, its arguments and options with their defaults, and
 * `example`, then exits 0 before anything has run. An unknown option or a stray argument is an
 * error naming it (exit 1), so no script ever acts on a flag it does not understand.
 * `usage` is how a person types it: `npm run relay-exec --`.
 */
export function scriptCommand(usage: string, description: string, example: string): Command {
  return new Command()
    .name(usage)
    .description(description)
    .showHelpAfterError('(--help for usage)')
    .addHelpText('after', `\nExample:\n  ${example}`);
}

/** commander's parser for a whole-number option from `min` to `max`, or a usage error naming the range. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`a whole number, ${min}–${max}`);
    return n;
  };
}

/** commander's parser for a `--port <number>` option: a port number, 1–65535, or a usage error naming the rule. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number, 1–65535');
  return n;
}
