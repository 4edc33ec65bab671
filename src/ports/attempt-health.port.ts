/**
 * The media attempts as provider health reads them (GET /admin/v1/providers): every worker process
 * records its attempts in the store, so the counts are read from there, not kept in memory.
 */
import type { StoreTransaction } from './store-transaction.port.ts';

export interface AttemptTally {
  provider: string;
  succeeded: number;
  failed: number;
  lastSucceededAt: number | null;
}

export interface AttemptHealthStore {
  /** Ended media attempts per provider since `since` (attempts still running say nothing yet). */
  tallyEndedAttempts(tx: StoreTransaction, since: number): Promise<AttemptTally[]>;
  /** The newest failure of a provider's attempts since `since`. */
  latestFailedAttempt(tx: StoreTransaction, provider: string, since: number): Promise<{ message: string; at: number } | undefined>;
}
