import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { DependencyUnavailableError } from '../../domain/errors.ts';

/**
 * SQLSTATEs that mean the server is going away or cannot take us, not that the statement was wrong:
 * class 08 (connection exception), admin/crash shutdown and "cannot connect now" (a restart or a
 * failover), and too many connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Whether a failed query means the database is out of reach rather than the statement at fault. The
 * server's own errors (pg.DatabaseError) are judged by SQLSTATE; any other error from the driver
 * (a reset socket, "Connection terminated", a client no longer queryable, a connect time-out) is the
 * connection's; a TypeError or RangeError is ours (a value pg could not serialise) and stays as it is.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return error.code !== undefined && (error.code.startsWith('08') || UNAVAILABLE_STATES.has(error.code));
  if (error instanceof TypeError || error instanceof RangeError) return false;
  return error instanceof Error;
}

function classified(error: unknown): unknown {
  return isConnectionFailure(error) ? new DependencyUnavailableError('database', { cause: error }) : error;
}

/**
 * The pg pool as Kysely sees it, made to survive the loss of connections (issue 17): an idle
 * connection that dies (a restart, a failover, an idle reaper, `pg_terminate_backend`) is reported
 * to `onError` instead of crashing the process through an unhandled 'error' event, and so is a
 * checked-out one that dies between two queries of a transaction; connection failures surface as
 * DependencyUnavailableError (answered 503 with Retry-After), and the pool opens new connections as
 * soon as the server answers again.
 */
export function guardedPostgresPool(pool: pg.Pool, onError: (error: Error) => void): PostgresPool {
  pool.on('error', (error) => onError(error));
  return {
    Client: pg.Client,
    options: pool.options,
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw classified(error);
      }
      // While checked out the pool does not listen: without this, a connection killed between two statements would crash us.
      const listener = (error: Error) => onError(error);
      client.on('error', listener);
      let released = false;
      const wrapped = {
        get processID() {
          return (client as unknown as { processID?: number }).processID;
        },
        query(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>): unknown {
          if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable);
          return client.query(sqlOrCursor, parameters as unknown[]).catch((error: unknown) => {
            throw classified(error);
          });
        },
        release(destroy?: boolean): void {
          if (released) return;
          released = true;
          client.removeListener('error', listener);
          client.release(destroy);
        },
      };
      return wrapped as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
