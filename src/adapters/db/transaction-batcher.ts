/**
 * Group commit for the short transactions of a hot path written through Kysely (a generation's
 * create; the chat ledger has its own, adapters/db/ledger/ledger-queue.ts). Under load most of the cost of
 * a short write is the COMMIT itself (the WAL append on SQLite, a round trip and a flush on
 * PostgreSQL), not the statements. Work items that arrive while
 * the previous batch is being written, or in the same turn of the event loop, are written together in
 * one transaction, each seeing the effects of the ones before it (so guarded balance changes stay
 * exact). An item declared refusable that throws an AppError (a refused hold, raised before it wrote
 * anything) fails alone; any other error rolls the batch back and every item of it is retried in a transaction of its own, so one bad
 * item never fails the others. At low load a batch holds one item and nothing waits.
 *
 * SQLite has one writer, so one batch is written at a time (`concurrency` 1). PostgreSQL can write
 * several at once on its pool (`concurrency` above 1); each batch then takes its row locks in the order
 * of the items' keys (the user id), so two batches never wait for each other in a cycle.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Schema } from './schema.ts';
import { isAppError, unavailableDependency } from '../../domain/errors.ts';

type Work<T> = (tx: Transaction<Schema>) => Promise<T>;

interface Item {
  work: Work<unknown>;
  /** Its AppErrors are raised before it writes anything, so the batch can go on without it. */
  refusable: boolean;
  /** The row it locks first (the user id): batches are written in key order. */
  key: string;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Longest wait of a lingering write for a batch to join. */
const LINGER_MS = 5;

/** Stable: items of one key keep their order. */
function byKey(a: Item, b: Item): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Thrown inside a batch to roll it back after an unexpected error (the items are then retried alone). */
class BatchFailed extends Error {}

export class TransactionBatcher {
  readonly #db: Kysely<Schema>;
  readonly #maxBatch: number;
  readonly #concurrency: number;
  #queue: Item[] = [];
  #scheduled = false;
  #writers = 0;
  #lingerTimer: NodeJS.Timeout | undefined;

  constructor(db: Kysely<Schema>, options: { maxBatch?: number; concurrency?: number } = {}) {
    this.#db = db;
    this.#maxBatch = options.maxBatch ?? 64;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
  }

  /**
   * Runs `work` in a transaction (possibly shared with other items) and resolves once it is committed.
   * `key`: the row it locks first (the user id). `refusable`: the work throws AppErrors only before its
   * first write. `linger`: nobody waits for this write (a settlement after its answer was sent), so
   * it may wait up to LINGER_MS for a write that someone does wait for, and share its commit: when
   * requests come one at a time, each settlement rides with the next request's hold, one commit per
   * request instead of two (and less time of the event loop spent committing).
   */
  run<T>(key: string, work: Work<T>, refusable = false, linger = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, refusable, key, resolve: resolve as (value: unknown) => void, reject });
      if (!linger) this.#schedule();
      else this.#lingerTimer ??= setTimeout(this.#lingered, LINGER_MS);
    });
  }

  readonly #lingered = (): void => {
    this.#lingerTimer = undefined;
    this.#schedule();
  };

  #schedule(): void {
    if (this.#scheduled || this.#writers >= this.#concurrency) return;
    this.#scheduled = true;
    // After the I/O callbacks of this turn of the event loop, so that requests that arrived together are written together.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writers++;
    // Whatever lingers is written now, with this batch.
    clearTimeout(this.#lingerTimer);
    this.#lingerTimer = undefined;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxBatch);
        // More arrived than this writer takes: another writer may start on them (PostgreSQL).
        if (this.#queue.length > 0) this.#schedule();
        if (batch.length === 1) await this.#alone(batch[0] as Item);
        else await this.#together(batch.sort(byKey));
      }
    } finally {
      this.#writers--;
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  async #alone(item: Item): Promise<void> {
    try {
      item.resolve(await this.#db.transaction().execute(item.work));
    } catch (error) {
      item.reject(error);
    }
  }

  async #together(batch: Item[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.#db.transaction().execute(async (tx) => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: await item.work(tx) });
          } catch (error) {
            // A refusal is raised before anything is written: the rest of the batch goes on.
            if (!item.refusable || !isAppError(error)) throw new BatchFailed('a batched item failed', { cause: error });
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The connection was lost: the commit may or may not have happened, so running the items again
      // could write them twice (two debits). Each caller gets the failure and resolves the doubt itself.
      if (unavailableDependency(error)) {
        for (const item of batch) item.reject(error);
        return;
      }
      // Rolled back (an unexpected error, a deadlock, a failed commit): each item on its own.
      for (const item of batch) await this.#alone(item);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    });
  }
}
