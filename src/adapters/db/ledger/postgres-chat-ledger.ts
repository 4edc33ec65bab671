/**
 * The chat ledger on PostgreSQL (ports/ledger.port.ts, ChatLedger): the holds and settlements that arrived together
 * (ledger-queue.ts) go to the database in one call of `chat_ledger_apply` (migration 010), which
 * applies them in order in one transaction: one round trip for a whole batch. Batching is what
 * matters on this store: every request of one user updates that user's row, so statements of their
 * own wait for each other's commits (700 requests/s of one user measured that way), and a batch of one
 * statement per operation pays a round trip each (1,200).
 *
 * A batch is ordered by user id (stably), so two batches in flight take their row locks in the same
 * order and never wait for each other in a cycle. A batch that fails as a whole (not a refusal: those
 * are replies) is sent again one operation at a time, so that one bad operation fails only itself.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { AppError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { spendMonthOf } from '../../../domain/ledger/key-spend-period.ts';
import type { ChatLedger, ChatRequestOutcome, NewChatRequest, SettleResult } from '../../../ports/ledger.port.ts';
import type { Schema } from '../schema.ts';
import { LedgerQueue, type Queued } from './ledger-queue.ts';
import { spendCapReached } from './spend-cap-refusal.ts';

/** An operation as chat_ledger_apply reads it (see the migration). */
type ApplyOperation = Record<string, string | number | null>;
/** Its reply: a hold's outcome, 'taken', or the amount a settlement charged. */
type ApplyReply = 'held' | 'insufficient_balance' | 'key_spend_cap_reached' | 'member_spend_cap_reached' | 'user_not_found' | 'taken' | number;

const APPLY = 'select chat_ledger_apply($1::jsonb) as replies';
/** Batches in flight at once (two users' batches can run side by side; one user's wait for each other). */
const MAX_IN_FLIGHT = 2;

export class PostgresChatLedger implements ChatLedger {
  readonly #db: Kysely<Schema>;
  readonly #queue: LedgerQueue<ApplyOperation, ApplyReply>;

  constructor(db: Kysely<Schema>) {
    this.#db = db;
    this.#queue = new LedgerQueue((batch) => this.#apply(batch), MAX_IN_FLIGHT);
  }

  async hold(r: NewChatRequest): Promise<void> {
    const reply = await this.#queue.submit({ kind: 'hold', ...held(r) });
    if (reply === 'insufficient_balance') throw new AppError('insufficient_balance', 'insufficient balance for this request');
    if (reply === 'key_spend_cap_reached') throw spendCapReached('key_cap_reached');
    if (reply === 'member_spend_cap_reached') throw spendCapReached('member_cap_reached');
    if (reply === 'user_not_found') throw new AppError('user_not_found', `user ${r.userId} not found`);
  }

  async settle(r: NewChatRequest, o: ChatRequestOutcome, note: string, linger: boolean): Promise<SettleResult> {
    const operation: ApplyOperation = {
      kind: 'settle',
      ...held(r),
      cost: o.costMicro,
      upstreamCost: o.upstreamCostMicro,
      note,
      entry: newId('led', o.finishedAt),
      status: o.status,
      provider: o.provider,
      upstreamModel: o.upstreamModel,
      attempts: o.attempts,
      input: o.inputTokens,
      output: o.outputTokens,
      cached: o.cachedTokens,
      cacheCreation: o.cacheCreationTokens,
      estimated: o.usageEstimated ? 1 : 0,
      stopReason: o.stopReason,
      latency: o.latencyMs,
      firstByte: o.firstByteMs,
      errorCode: o.errorCode,
      errorMessage: o.errorMessage === null ? null : o.errorMessage.slice(0, 1000),
      finished: o.finishedAt,
    };
    const reply = await this.#queue.submit(operation, linger);
    if (reply === 'taken') return 'taken';
    const collected = Number(reply);
    return collected === o.costMicro ? 'done' : { uncollectedMicro: o.costMicro - collected };
  }

  async close(): Promise<void> {
    this.#queue.flush();
  }

  async #apply(batch: Array<Queued<ApplyOperation>>): Promise<void> {
    const ordered = [...batch].sort((a, b) => (a.operation.user === b.operation.user ? a.seq - b.seq : String(a.operation.user) < String(b.operation.user) ? -1 : 1));
    let replies: ApplyReply[];
    try {
      replies = await this.#call(ordered.map((queued) => queued.operation));
    } catch (error) {
      // Rolled back as a whole: nothing of it was written.
      if (ordered.length === 1) {
        const only = ordered[0] as Queued<ApplyOperation>;
        this.#queue.fail(only.seq, error instanceof Error ? error : new Error(String(error)));
        return;
      }
      for (const queued of ordered) await this.#apply([queued]);
      return;
    }
    for (const [i, queued] of ordered.entries()) this.#queue.answer(queued.seq, replies[i] as ApplyReply);
  }

  async #call(operations: ApplyOperation[]): Promise<ApplyReply[]> {
    const result = await this.#db.executeQuery<{ replies: ApplyReply[] }>(CompiledQuery.raw(APPLY, [JSON.stringify(operations)]));
    const replies = result.rows[0]?.replies;
    if (!Array.isArray(replies) || replies.length !== operations.length) throw new Error('chat_ledger_apply answered something else than one reply per operation');
    return replies;
  }
}

function held(r: NewChatRequest): ApplyOperation {
  return { id: r.id, user: r.userId, key: r.apiKeyId, model: r.model, protocol: r.protocol, stream: r.stream ? 1 : 0, hold: r.holdMicro, now: r.now, month: spendMonthOf(r.now) };
}
