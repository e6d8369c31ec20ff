import type { OAuthClient } from '../../config';

/** Looks registered public clients up by `client_id`. */
export interface RegisteredClients {
  find(clientId: unknown): OAuthClient | undefined;
}

/**
 * The clients of the authorization code flow, from config. Redirect URIs are compared as
 * exact strings (RFC 9700 §4.1.3): no prefix, wildcard or port leniency.
 */
export function registeredClients(clients: readonly OAuthClient[]): RegisteredClients {
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  return {
    find: (clientId) => (typeof clientId === 'string' ? byId.get(clientId) : undefined),
  };
}
