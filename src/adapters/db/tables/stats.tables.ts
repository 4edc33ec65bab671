/** The stats tables as Kysely sees them: the rows of ports/store-rows/stats.rows.ts, with the columns the database fills. */
import type { StatsCheckpointsRow } from '../../../ports/store-rows/stats.rows.ts';

export type StatsCheckpointsTable = StatsCheckpointsRow;

export interface StatsTables {
  stats_checkpoints: StatsCheckpointsTable;
}
