import type { RequestHandler } from 'express';
import { basicCredential, decodeBasicPair, httpError, type HttpError } from '../http';
import type { ControlPlaneStore } from './control-plane-store';
import type { EdgeConnection } from './connection-repository';

function connectionUnauthorized(): HttpError {
  return httpError('unauthorized', 'missing or invalid connection credentials', { headers: { 'WWW-Authenticate': 'Basic realm="outpost-edge"' } });
}

/**
 * Authenticates an edge: `Authorization: Basic base64(connection_id:connection_secret)`
 * (RFC 7617), checked in constant time. On success `res.locals.connection` holds the
 * {@link EdgeConnection}; any failure is the same 401.
 */
export function requireConnection(store: ControlPlaneStore): RequestHandler {
  return async function requireConnectionMiddleware(req, res, next) {
    const credential = basicCredential(req.get('authorization'));
    const pair = credential === undefined ? undefined : decodeBasicPair(credential);
    const connection = pair && (await store.verifyConnection(pair.user, pair.password));
    if (!connection) throw connectionUnauthorized();
    res.locals.connection = connection;
    next();
  };
}

/** The connection set by {@link requireConnection}. */
export function authenticatedConnection(locals: Record<string, unknown>): EdgeConnection {
  const connection = locals.connection as EdgeConnection | undefined;
  if (!connection) throw new Error('requireConnection must run before this handler');
  return connection;
}
