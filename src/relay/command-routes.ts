import type { CommandName } from '../relay-protocol';
import { parseExecRequest } from './parse-exec-request';

/** docs/service-interface.md §4.2. */
export const EXEC_PATH = '/api/v2/management/control_plane/exec';
/** An exec body (or a plug-in's command, as broadcast's) is a few dozen bytes; anything near this limit is not one (413). */
export const EXEC_BODY_LIMIT = 4 * 1024;

/** What exec asks of the relay. */
export interface RelayCommands {
  exec(tenantId: string, instanceId: string, command: CommandName): Promise<unknown>;
}

/**
 * A JSON command once its caller is known: the route's path and body limit, and what it does
 * with the tenant the Discovery API key named and the parsed body. Served by the management
 * router (Express); the same definition serves the platform's opt-in bare `node:http` path
 * (src/fast-path, RELAY_BARE_EXEC=on), so the two cannot drift apart. Exec is the relay's;
 * an extension adds its own (`RelayExtensionParts.commandRoutes`).
 */
export interface CommandRoute {
  readonly path: string;
  readonly limitBytes: number;
  /** Throws exec's HttpErrors (400 body, 404/409/429/502/503/504 from the relay). */
  run(tenantId: string, body: unknown): Promise<{ readonly headers: Readonly<Record<string, string>>; readonly body: unknown }>;
}

/** The headers of a command's answer. */
export const NO_STORE = Object.freeze({ 'Cache-Control': 'no-store' });

/** Exec over `relay`. */
export function execRoute(relay: RelayCommands): CommandRoute {
  return {
    path: EXEC_PATH,
    limitBytes: EXEC_BODY_LIMIT,
    async run(tenantId, body) {
      const { id, command } = parseExecRequest(body);
      await relay.exec(tenantId, id, command);
      return { headers: NO_STORE, body: { result: {} } };
    },
  };
}
