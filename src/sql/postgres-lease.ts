import type { Pool, PoolClient, QueryResult } from 'pg';
import { SqlConnectionError } from './sql-connection-error';
import type { SqlValue } from './sql-database';

/**
 * node-postgres reports a connection that dropped or could not be had in time as a bare
 * Error; give it a code. Server errors (SQLSTATE), socket errors (errno codes) and our own
 * errors (a parser's RangeError) keep theirs.
 */
function classify(err: unknown, connectionBroke: boolean): unknown {
  // Loaded already: a lease comes from a pool (`open-postgres-database.ts` loads `pg` lazily).
  if (err instanceof (require('pg') as typeof import('pg')).DatabaseError) return err;
  if (typeof (err as { code?: unknown } | null)?.code === 'string') return err;
  if (!connectionBroke) return err;
  return new SqlConnectionError('the connection to PostgreSQL failed', { cause: err });
}

/** One checked-out connection, watched for breaking while we hold it. */
export interface Lease {
  readonly client: PoolClient;
  /** Set when the connection emitted `error`: it must go back to the pool with it. */
  broken: Error | undefined;
}

/** Checks a connection out of `pool`, watching it for breaking while it is held. */
export async function lease(pool: Pool): Promise<Lease> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    // Whatever kept the pool from handing out a connection is about the connection.
    throw classify(err, true);
  }
  const held: Lease = { client, broken: undefined };
  // Without a listener, an `error` on a checked-out client would crash the process.
  client.on('error', (err: Error) => {
    held.broken = err;
  });
  return held;
}

/** Returns the connection to its pool; one that broke (or `err`) is closed instead of reused. */
export function giveBack(held: Lease, err?: Error): void {
  held.client.removeAllListeners('error');
  const reason = held.broken ?? err;
  // A client released with an error is closed by the pool instead of being reused.
  held.client.release(reason);
}

/** Runs one statement (or, without `params`, a script) on the held connection; errors get a code. */
export async function queryOnLease(held: Lease, sql: string, params: readonly SqlValue[] | undefined): Promise<QueryResult> {
  try {
    return params === undefined ? await held.client.query(sql) : await held.client.query(sql, params as SqlValue[]);
  } catch (err) {
    throw classify(err, held.broken !== undefined);
  }
}
