import { BadRequestError } from '../http';
import { COMMANDS } from '../relay-protocol';
import type { CommandName } from '../relay-protocol';

/** A validated exec body (docs/service-interface.md §2.3). */
export interface ExecRequest {
  readonly id: string;
  readonly command: CommandName;
}

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks an exec body: `{"id": "<instance id>", "command": {"<name>": {}}}` with exactly one
 * command member whose value is an empty object. Throws a 400 `bad_request` (or
 * `unknown_command`) naming the problem; unknown top-level members are ignored.
 */
export function parseExecRequest(body: unknown): ExecRequest {
  if (!isPlainObject(body)) throw new BadRequestError('the body must be a JSON object');
  const { id, command } = body;
  if (typeof id !== 'string' || id.length === 0) throw new BadRequestError('"id" must be a non-empty string (the instance id)');
  return { id, command: parseCommand(command) };
}

/**
 * Checks a `"command"` member, exec's and broadcast's alike: exactly one member naming a
 * known command, whose value is an empty object. Throws 400 `bad_request` or `unknown_command`.
 */
export function parseCommand(command: unknown): CommandName {
  if (!isPlainObject(command)) throw new BadRequestError('"command" must be an object with exactly one command member');
  const names = Object.keys(command);
  if (names.length !== 1) {
    throw new BadRequestError(`"command" must have exactly one member (discovery or sync_edge_directory), found ${names.length}`);
  }
  const name = names[0] as string;
  if (!(COMMANDS as readonly string[]).includes(name)) {
    throw new BadRequestError(`unknown command "${name.slice(0, 64)}"; expected discovery or sync_edge_directory`, 'unknown_command');
  }
  const argument = command[name];
  if (!isPlainObject(argument) || Object.keys(argument).length > 0) {
    throw new BadRequestError(`"command.${name}" must be an empty object {}`);
  }
  return name as CommandName;
}
