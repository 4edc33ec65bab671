/**
 * The chat ledger on SQLite: its statements and commits run on a writer thread with its own
 * connection (chat-ledger.worker.ts), not on the event loop. Holds and settlements that arrive in the
 * same turn of the event loop leave in one message (ledger-queue.ts); the thread writes every message
 * it finds waiting in one transaction (group commit) and answers each operation. The two threads agree on who writes through
 * the process's SqliteWriteLock, so the event loop's own writes never sleep in SQLite's busy handler.
 *
 * Measured on bench/chat's load (docs/decisions.md, "The chat ledger's writer thread"): the event
 * loop spent about a quarter of its time per proxied request in these statements and their commits.
 *
 * The thread starts with the first operation (a gateway that serves no text request never starts it)
 * and again after a failure; if it dies, the operations it had not answered fail (a hold: the request
 * fails; a settlement: the crash job releases the hold, as after any crash).
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { SqliteFile } from '../../adapters/db/sqlite-file.ts';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ChatLedger, SettleResult } from './chat-ledger.ts';
import type { HoldResult } from './chat-ledger.sqlite.ts';
import type { ChatRequestOutcome, NewChatRequest } from './chat-records.ts';
import { LedgerQueue } from './ledger-queue.ts';

/** An operation for the writer thread. */
export type LedgerOperation =
  | { seq: number; kind: 'hold'; request: NewChatRequest }
  | { seq: number; kind: 'settle'; request: NewChatRequest; outcome: ChatRequestOutcome; note: string; entryId: string };

/** Main thread → writer thread. */
export type LedgerMessage = { operations: LedgerOperation[] } | 'stop';

/** Writer thread → main thread: each operation's answer, by `seq`. */
export interface LedgerReplies {
  replies: Array<[seq: number, reply: LedgerReply]>;
}

export type LedgerReply = { ok: true; value: HoldResult | SettleResult } | { ok: false; message: string };

export interface LedgerWorkerData {
  path: string;
  lock: SharedArrayBuffer;
}

type Operation = DistributiveOmit<LedgerOperation, 'seq'>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export class SqliteChatLedgerThread implements ChatLedger {
  readonly #file: SqliteFile;
  readonly #logger: Logger;
  #worker: Worker | undefined;
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
    const result = await this.#submit({ kind: 'hold', request }, false);
    if (result === 'insufficient_balance') throw new AppError('insufficient_balance', 'insufficient balance for this request');
    if (result === 'user_not_found') throw new AppError('user_not_found', `user ${request.userId} not found`);
  }

  settle(request: NewChatRequest, outcome: ChatRequestOutcome, note: string, linger: boolean): Promise<SettleResult> {
    const entryId = newId('led', outcome.finishedAt);
    return this.#submit({ kind: 'settle', request, outcome, note, entryId }, linger) as Promise<SettleResult>;
  }

  async close(): Promise<void> {
    this.#queue.flush();
    const worker = this.#worker;
    if (!worker) return;
    // The thread answers what it was sent before it reads 'stop', then ends.
    worker.ref();
    worker.postMessage('stop' satisfies LedgerMessage);
    await this.#exited;
  }

  #submit(operation: Operation, linger: boolean): Promise<HoldResult | SettleResult> {
    // While an operation waits, the thread keeps the process alive; idle, it does not.
    if (this.#queue.waiting === 0) this.#worker?.ref();
    return this.#queue.submit(operation, linger);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./chat-ledger.worker.ts', import.meta.url), {
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
      else this.#queue.fail(seq, new Error(`chat ledger: ${reply.message}`));
    }
    if (this.#queue.waiting === 0) this.#worker?.unref();
  }
}
