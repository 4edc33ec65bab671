/**
 * The chat ledger on SQLite (ports/ledger.port.ts, ChatLedger): its statements and commits run on a
 * writer thread with its own connection (sqlite-chat-ledger.worker.ts), not on the event loop. Holds and settlements that arrive in the
 * same turn of the event loop leave in one message (ledger-queue.ts); the thread writes every message
 * it finds waiting in one transaction (group commit) and answers each operation. The two threads agree on who writes through
 * the process's SqliteWriteLock, so the event loop's own writes never sleep in SQLite's busy handler.
 *
 * Measured on bench/chat's load (docs/decisions.md, "The chat ledger's writer thread"): the event
 * loop spent about a quarter of its time per proxied request in these statements and their commits.
 *
 * A quiet process (fewer than QUIET_BELOW chat requests open) writes a hold on the event loop itself,
 * on a connection of its own, when the write lock is free: a commit there costs less than the two
 * thread hops, each of which on a busy machine may wait for a core (docs/decisions.md, "Holds on the
 * event loop when quiet"). Under load the thread's group commit, one commit for many operations, costs
 * the event loop less. Settlements always go to the thread (nobody waits for most of them).
 *
 * The thread starts with the first operation (a gateway that serves no text request never starts it)
 * and again after a failure; if it dies, the operations it had not answered fail (a hold: the request
 * fails; a settlement: the crash job releases the hold, as after any crash).
 */
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AppError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import type { ChatLedger, ChatRequestOutcome, HoldResult, NewChatRequest, SettleResult } from '../../../ports/ledger.port.ts';
import { openSqliteFile } from '../sqlite/sqlite-connection.ts';
import type { SqliteFile } from '../sqlite/sqlite-file.ts';
import { LedgerQueue } from './ledger-queue.ts';
import type { LedgerMessage, LedgerOperation, LedgerReplies, LedgerWorkerData } from './sqlite-chat-ledger.messages.ts';
import { SqliteChatStatements } from './sqlite-chat-statements.ts';
import { spendCapReached } from './spend-cap-refusal.ts';

/** Below this many open chat requests in the process, a hold may be written on the event loop. */
const QUIET_BELOW = 2;

type Operation = DistributiveOmit<LedgerOperation, 'seq'>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export class SqliteChatLedgerThread implements ChatLedger {
  readonly #file: SqliteFile;
  readonly #logger: Logger;
  #worker: Worker | undefined;
  /** The event loop's own connection for holds while quiet; opened on first use. */
  #direct: { db: DatabaseSync; statements: SqliteChatStatements } | undefined;
  /** Holds asked for or taken, and not yet sent for settlement. */
  #open = 0;
  #exited: Promise<void> | undefined;
  readonly #queue = new LedgerQueue<Operation, HoldResult | SettleResult>((batch) => {
    const operations = batch.map(({ seq, operation }) => ({ ...operation, seq }) as LedgerOperation);
    this.#thread().postMessage({ operations } satisfies LedgerMessage);
    return undefined;
  });

  constructor(file: SqliteFile, logger: Logger) {
    this.#file = file;
    this.#logger = logger;
  }

  async hold(request: NewChatRequest): Promise<void> {
    const quiet = this.#open < QUIET_BELOW;
    this.#open++;
    let result: HoldResult | SettleResult;
    try {
      result = (quiet ? this.#holdOnEventLoop(request) : undefined) ?? (await this.#submit({ kind: 'hold', request }, false));
    } catch (error) {
      this.#open--;
      throw error;
    }
    if (result !== 'held') this.#open--;
    if (result === 'insufficient_balance') throw new AppError('insufficient_balance', 'insufficient balance for this request');
    if (result === 'key_spend_cap_reached') throw spendCapReached('key_cap_reached');
    if (result === 'member_spend_cap_reached') throw spendCapReached('member_cap_reached');
    if (result === 'user_not_found') throw new AppError('user_not_found', `user ${request.userId} not found`);
  }

  settle(request: NewChatRequest, outcome: ChatRequestOutcome, note: string, linger: boolean): Promise<SettleResult> {
    this.#open = Math.max(0, this.#open - 1);
    const entryId = newId('led', outcome.finishedAt);
    return this.#submit({ kind: 'settle', request, outcome, note, entryId }, linger) as Promise<SettleResult>;
  }

  async close(): Promise<void> {
    this.#direct?.db.close();
    this.#direct = undefined;
    this.#queue.flush();
    const worker = this.#worker;
    if (!worker) return;
    // The thread answers what it was sent before it reads 'stop', then ends.
    worker.ref();
    worker.postMessage('stop' satisfies LedgerMessage);
    await this.#exited;
  }

  /**
   * The hold written here and now, or undefined to send it to the thread: the process is busy, the
   * write lock is taken, or another process holds SQLite's lock (busy timeout 0: the event loop never
   * sleeps in SQLite's busy handler).
   */
  #holdOnEventLoop(request: NewChatRequest): HoldResult | undefined {
    if (!this.#file.lock.tryAcquire()) return undefined;
    try {
      const { db, statements } = this.#directConnection();
      try {
        db.exec('begin immediate');
      } catch {
        return undefined;
      }
      try {
        const result = statements.hold(request);
        db.exec('commit');
        return result;
      } catch (error) {
        if (db.isTransaction) db.exec('rollback');
        throw error;
      }
    } finally {
      this.#file.lock.release();
    }
  }

  #directConnection(): { db: DatabaseSync; statements: SqliteChatStatements } {
    if (this.#direct) return this.#direct;
    const db = openSqliteFile(this.#file.path);
    // The checkpointer thread checkpoints; a commit here must not.
    db.exec('pragma wal_autocheckpoint = 0');
    db.exec('pragma busy_timeout = 0');
    this.#direct = { db, statements: new SqliteChatStatements(db) };
    return this.#direct;
  }

  #submit(operation: Operation, linger: boolean): Promise<HoldResult | SettleResult> {
    // While an operation waits, the thread keeps the process alive; idle, it does not.
    if (this.#queue.waiting === 0) this.#worker?.ref();
    return this.#queue.submit(operation, linger);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./sqlite-chat-ledger.worker.ts', import.meta.url), {
      workerData: { path: this.#file.path, lock: this.#file.lock.buffer } satisfies LedgerWorkerData,
    });
    worker.on('message', (message: LedgerReplies) => this.#answer(message));
    worker.on('error', (error) => this.#logger.error({ err: error }, 'the chat ledger thread failed'));
    this.#exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        if (this.#worker === worker) this.#worker = undefined;
        this.#queue.failAll(new Error(`the chat ledger thread stopped (exit code ${code}) before answering`));
        resolve();
      });
    });
    this.#worker = worker;
    return worker;
  }

  #answer({ replies }: LedgerReplies): void {
    for (const [seq, reply] of replies) {
      if (reply.ok) this.#queue.answer(seq, reply.value);
      else this.#queue.fail(seq, Object.assign(new Error(`chat ledger: ${reply.message}`), reply.errcode === undefined ? {} : { errcode: reply.errcode }));
    }
    if (this.#queue.waiting === 0) this.#worker?.unref();
  }
}
