import type { AttemptHealthStore } from '../../../ports/attempt-health.port.ts';
import { latestFailedAttempt, tallyEndedAttempts } from '../repositories/attempt-health.repository.ts';
import { executorOf } from '../schema.ts';

/** Provider health's reads of the media attempts, over Kysely (SQLite and PostgreSQL). */
export const kyselyAttemptHealthStore: AttemptHealthStore = {
  tallyEndedAttempts: (tx, since) => tallyEndedAttempts(executorOf(tx), since),
  latestFailedAttempt: (tx, provider, since) => latestFailedAttempt(executorOf(tx), provider, since),
};
