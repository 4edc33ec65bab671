/**
 * The two writes of every chat request, on the hot path: the hold and the settlement. They follow the
 * ledger's rules exactly (ledger.service.ts: a guarded balance change that never goes below zero, an
 * entry unique per (kind, reference) carrying the balance after it, in the caller's transaction), as
 * fixed statements rather than query builders, because at thousands of requests a second building and
 * compiling six queries cost more than running them. On PostgreSQL each of the two is a single
 * statement (data-modifying CTEs): one round trip instead of three. On SQLite they are prepared on the
 * write connection and run synchronously inside the batch's transaction (sqlite-writer.ts), without
 * Kysely's per-statement promise, connection lock and result wrapping. The rare paths (a charge above
 * the hold, the crash settlement) use postLedgerEntry itself.
 */
import type { StatementSync } from 'node:sqlite';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from '../../adapters/db/dialect-of.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { sqliteWriterOf } from '../../adapters/db/sqlite-writer.ts';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ChatRequestOutcome, NewChatRequest } from './chat-records.ts';

type Tx = Transaction<Schema>;

export interface HoldMovement {
  request: NewChatRequest;
  note: string;
}

export class ChatLedger {
  /** PostgreSQL: the hold and the settlement as one statement each (PG_HOLD, PG_SETTLE). */
  readonly #postgres: boolean;
  /** SQLite: prepared on the write connection and run synchronously (sqlite-writer.ts). */
  readonly #sqlite: SqliteStatements | undefined;

  constructor(db: Kysely<Schema>) {
    this.#postgres = isPostgres(db);
    if (this.#postgres) return;
    const writer = sqliteWriterOf(db);
    if (!writer) throw new Error('ChatLedger on SQLite needs the write connection that openDatabase attaches');
    this.#sqlite = {
      debitGuarded: writer.prepare(SQLITE_DEBIT_GUARDED),
      userExists: writer.prepare(USER_EXISTS.replace('$1', '?')),
      insertEntry: writer.prepare(SQLITE_INSERT_ENTRY),
      insertRequest: writer.prepare(SQLITE_INSERT_REQUEST),
      finishRequest: writer.prepare(SQLITE_FINISH_REQUEST),
    };
  }

  /**
   * The hold: the `chat_hold` entry of −hold (refused with insufficient_balance when it does not fit,
   * before anything is written) and the `in_progress` row.
   */
  async hold(tx: Tx, movement: HoldMovement): Promise<void> {
    const r = movement.request;
    const sqlite = this.#sqlite;
    if (!sqlite) {
      const held = await tx.executeQuery(
        CompiledQuery.raw(PG_HOLD, [r.userId, r.holdMicro, newId('led', r.now), r.id, movement.note, r.now, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0]),
      );
      if (held.rows.length === 1) return;
      const user = await tx.executeQuery(CompiledQuery.raw(USER_EXISTS, [r.userId]));
      throw refusal(user.rows.length > 0, r.userId);
    }
    // Inside the batch's transaction, which Kysely opened on this same connection.
    const row = sqlite.debitGuarded.get(-r.holdMicro, r.userId, -r.holdMicro) as { balance_micro: number } | undefined;
    if (row === undefined) throw refusal(sqlite.userExists.get(r.userId) !== undefined, r.userId);
    sqlite.insertEntry.run(newId('led', r.now), r.userId, 'chat_hold', r.id, -r.holdMicro, Number(row.balance_micro), movement.note, r.now);
    sqlite.insertRequest.run(r.id, r.userId, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0, r.holdMicro, r.now, r.now);
  }

  /**
   * Finishes the row (compare-and-set on `in_progress`) and, when this call won it, writes the
   * `chat_release` of `releaseMicro`. Returns 'taken' when the row had left `in_progress` (the crash
   * job released it), 'short' when a negative release did not fit the balance (nothing written for it:
   * the caller takes what is there through postLedgerEntry), else 'done'.
   */
  async settle(tx: Tx, id: string, userId: string, o: ChatRequestOutcome, releaseMicro: number, note: string): Promise<'done' | 'taken' | 'short'> {
    const outcome = [
      o.status,
      o.provider,
      o.upstreamModel,
      o.attempts,
      o.inputTokens,
      o.outputTokens,
      o.cachedTokens,
      o.cacheCreationTokens,
      o.usageEstimated ? 1 : 0,
      o.costMicro,
      o.stopReason,
      o.latencyMs,
      o.firstByteMs,
      o.errorCode,
      o.errorMessage === null ? null : o.errorMessage.slice(0, 1000),
      o.finishedAt,
    ];
    const sqlite = this.#sqlite;
    if (!sqlite) {
      const result = await tx.executeQuery<{ won: number; moved: number }>(
        CompiledQuery.raw(PG_SETTLE, [id, ...outcome, releaseMicro, newId('led', o.finishedAt), note]),
      );
      const row = result.rows[0];
      if (!row || Number(row.won) !== 1) return 'taken';
      return Number(row.moved) === 1 ? 'done' : 'short';
    }
    // A plain insert for the entry: the reference is this request's own id and the row's
    // compare-and-set admits one writer, so a duplicate can only be a bug; its constraint error rolls
    // the transaction back.
    if (sqlite.finishRequest.run(...outcome, id).changes !== 1) return 'taken';
    const row = sqlite.debitGuarded.get(releaseMicro, userId, releaseMicro) as { balance_micro: number } | undefined;
    if (row === undefined) return 'short';
    sqlite.insertEntry.run(newId('led', o.finishedAt), userId, 'chat_release', id, releaseMicro, Number(row.balance_micro), note, o.finishedAt);
    return 'done';
  }
}

/** After a hold that did not fit: which refusal (nothing was written). */
function refusal(userExists: boolean, userId: string): AppError {
  return userExists ? new AppError('insufficient_balance', 'insufficient balance for this request') : new AppError('user_not_found', `user ${userId} not found`);
}

const USER_EXISTS = 'select 1 as found from users where id = $1';
const SQLITE_DEBIT_GUARDED = 'update users set balance_micro = balance_micro + ? where id = ? and balance_micro + ? >= 0 returning balance_micro';
const SQLITE_INSERT_ENTRY =
  'insert into ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)';
const SQLITE_INSERT_REQUEST = `insert into chat_requests (id, user_id, api_key_id, model, protocol, stream, status, input_tokens, output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, created_at, last_seen_at)
  values (?, ?, ?, ?, ?, ?, 'in_progress', 0, 0, 0, 0, 0, ?, 0, ?, ?)`;
const SQLITE_FINISH_REQUEST = `update chat_requests set status = ?, provider = ?, upstream_model = ?, attempts = ?, input_tokens = ?, output_tokens = ?, cached_tokens = ?, cache_creation_tokens = ?, usage_estimated = ?, cost_micro = ?, stop_reason = ?, latency_ms = ?, first_byte_ms = ?, error_code = ?, error_message = ?, finished_at = ?
  where id = ? and status = 'in_progress'`;

interface SqliteStatements {
  debitGuarded: StatementSync;
  userExists: StatementSync;
  insertEntry: StatementSync;
  insertRequest: StatementSync;
  finishRequest: StatementSync;
}

/**
 * PostgreSQL hold: $1 user, $2 hold (positive), $3 ledger id, $4 request id, $5 note, $6 now, $7 key id,
 * $8 model, $9 protocol, $10 stream. Every write depends on the guarded update's row: when the hold
 * does not fit, nothing is written and no row comes back.
 */
const PG_HOLD = `with u as (
  update users set balance_micro = balance_micro - $2::bigint where id = $1 and balance_micro - $2::bigint >= 0 returning balance_micro
), e as (
  insert into ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at)
  select $3, $1, 'chat_hold', $4, -($2::bigint), balance_micro, $5, $6::bigint from u
)
insert into chat_requests (id, user_id, api_key_id, model, protocol, stream, status, input_tokens, output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, created_at, last_seen_at)
select $4, $1, $7, $8, $9, $10::integer, 'in_progress', 0, 0, 0, 0, 0, $2::bigint, 0, $6::bigint, $6::bigint from u
returning hold_micro`;

/**
 * PostgreSQL settlement: $1 request id, $2–$17 the outcome (as SQLITE_FINISH_REQUEST), $18 release, $19 ledger
 * id, $20 note. The row's compare-and-set (r) gates the guarded balance change (u), which gates the
 * entry (e); `won` and `moved` tell which happened.
 */
const PG_SETTLE = `with r as (
  update chat_requests set status = $2, provider = $3, upstream_model = $4, attempts = $5, input_tokens = $6, output_tokens = $7, cached_tokens = $8, cache_creation_tokens = $9, usage_estimated = $10, cost_micro = $11, stop_reason = $12, latency_ms = $13, first_byte_ms = $14, error_code = $15, error_message = $16, finished_at = $17
  where id = $1 and status = 'in_progress' returning user_id
), u as (
  update users set balance_micro = balance_micro + $18::bigint
  where id = (select user_id from r) and balance_micro + $18::bigint >= 0 returning balance_micro
), e as (
  insert into ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at)
  select $19, (select user_id from r), 'chat_release', $1, $18::bigint, balance_micro, $20, $17 from u
)
select (select count(*) from r) as won, (select count(*) from u) as moved`;

