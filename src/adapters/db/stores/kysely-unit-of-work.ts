import type { Kysely } from 'kysely';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { Schema } from '../schema.ts';

/** The unit of work over the gateway's one Kysely handle (SQLite or PostgreSQL). */
export function kyselyUnitOfWork(db: Kysely<Schema>): UnitOfWork {
  return {
    direct: db,
    transaction: (work) => db.transaction().execute((tx) => work(tx)),
  };
}
