import type { Generated } from 'kysely';

/** A row as the database stores it: the columns named in `Filled` may be left out of an insert (the database's default fills them). */
export type Stored<Row, Filled extends keyof Row> = Omit<Row, Filled> & { [Column in Filled]: Generated<Row[Column]> };
