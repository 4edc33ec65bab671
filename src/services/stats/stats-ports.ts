import type { StatsStore } from '../../ports/stats-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

/** What the statistics, the generation list and the export read through: the stats store and the unit of work (for lone reads). */
export interface StatsPorts {
  store: StatsStore;
  uow: UnitOfWork;
}
