/**
 * The two writes of every chat request, on the hot path: the hold and the settlement. They follow the
 * ledger's rules exactly (ledger.service.ts: a guarded balance change that never goes below zero, an
 * entry unique per (kind, reference) carrying the balance after it, in the caller's transaction), but
 * as statements compiled once per process instead of query builders, because at thousands of requests
 * a second the building and compiling of six queries cost more than running them. On PostgreSQL each
 * of the two is a single statement (data-modifying CTEs): one round trip instead of three. On SQLite
 * they are prepared on the write connection and run synchronously inside the batch's transaction
 * (sqlite-writer.ts): Kysely's per-statement promise and connection lock were a fifth of their cost. The rare
 * paths (a charge above the hold, the crash settlement) use postLedgerEntry itself.
 */
import type { StatementSync } from 'node:sqlite';
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
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
  readonly #debitGuarded: string;
  readonly #userExists: string;
  readonly #insertEntry: string;
  readonly #insertRequest: string;
  readonly #finishRequest: string;
  /** PostgreSQL: the hold and the settlement as one statement each. */
  readonly #postgres: boolean;
  /** SQLite: the same statements prepared on the write connection and run synchronously (sqlite-writer.ts). */
  readonly #sqlite: SqliteStatements | undefined;

  /** Compiles the statements for the database's dialect (SQLite `?`, PostgreSQL `$n` placeholders). */
  constructor(db: Kysely<Schema>) {
    const text = (query: { compile(db: Kysely<Schema>): CompiledQuery }) => query.compile(db).sql;
    const p = sql.val(0);
    this.#postgres = text(sql`${p}`) === '$1';
    this.#debitGuarded = text(sql`update users set balance_micro = balance_micro + ${p} where id = ${p} and balance_micro + ${p} >= 0 returning balance_micro`);
    this.#userExists = text(sql`select 1 as found from users where id = ${p}`);
    this.#insertEntry = text(
      sql`insert into ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at) values (${p}, ${p}, ${p}, ${p}, ${p}, ${p}, ${p}, ${p})`,
    );
    this.#insertRequest = text(
      sql`insert into chat_requests (id, user_id, api_key_id, model, protocol, stream, status, input_tokens, output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, created_at, last_seen_at) values (${p}, ${p}, ${p}, ${p}, ${p}, ${p}, 'in_progress', 0, 0, 0, 0, 0, ${p}, 0, ${p}, ${p})`,
    );
    this.#finishRequest = text(
      sql`update chat_requests set status = ${p}, provider = ${p}, upstream_model = ${p}, attempts = ${p}, input_tokens = ${p}, output_tokens = ${p}, cached_tokens = ${p}, cache_creation_tokens = ${p}, usage_estimated = ${p}, cost_micro = ${p}, stop_reason = ${p}, latency_ms = ${p}, first_byte_ms = ${p}, error_code = ${p}, error_message = ${p}, finished_at = ${p} where id = ${p} and status = 'in_progress'`,
    );
    const writer = this.#postgres ? undefined : sqliteWriterOf(db);
    this.#sqlite = writer && {
      debitGuarded: writer.prepare(this.#debitGuarded),
      userExists: writer.prepare(this.#userExists),
      insertEntry: writer.prepare(this.#insertEntry),
      insertRequest: writer.prepare(this.#insertRequest),
      finishRequest: writer.prepare(this.#finishRequest),
    };
  }

  /**
   * The hold: the `chat_hold` entry of −hold (refused with insufficient_balance when it does not fit,
   * before anything is written) and the `in_progress` row.
   */
  async hold(tx: Tx, movement: HoldMovement): Promise<void> {
    const r = movement.request;
    if (this.#postgres) {
      const held = await tx.executeQuery(
        CompiledQuery.raw(PG_HOLD, [r.userId, r.holdMicro, newId('led', r.now), r.id, movement.note, r.now, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0]),
      );
      if (held.rows.length === 1) return;
      return this.#refuse(tx, r.userId);
    }
    const sqlite = this.#sqlite;
    if (sqlite) {
      // Inside the batch's transaction, which Kysely opened on this same connection.
      const row = sqlite.debitGuarded.get(-r.holdMicro, r.userId, -r.holdMicro) as { balance_micro: number } | undefined;
      if (row === undefined) {
        if (sqlite.userExists.get(r.userId) === undefined) throw new AppError('user_not_found', `user ${r.userId} not found`);
        throw new AppError('insufficient_balance', 'insufficient balance for this request');
      }
      sqlite.insertEntry.run(newId('led', r.now), r.userId, 'chat_hold', r.id, -r.holdMicro, Number(row.balance_micro), movement.note, r.now);
      sqlite.insertRequest.run(r.id, r.userId, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0, r.holdMicro, r.now, r.now);
      return;
    }
    const balance = await this.#changeBalance(tx, r.userId, -r.holdMicro);
    if (balance === undefined) return this.#refuse(tx, r.userId);
    await this.#entry(tx, r.userId, 'chat_hold', r.id, -r.holdMicro, balance, movement.note, r.now);
    await tx.executeQuery(
      CompiledQuery.raw(this.#insertRequest, [r.id, r.userId, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0, r.holdMicro, r.now, r.now]),
    );
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
    if (this.#postgres) {
      const result = await tx.executeQuery<{ won: number; moved: number }>(
        CompiledQuery.raw(PG_SETTLE, [id, ...outcome, releaseMicro, newId('led', o.finishedAt), note]),
      );
      const row = result.rows[0];
      if (!row || Number(row.won) !== 1) return 'taken';
      return Number(row.moved) === 1 ? 'done' : 'short';
    }
    const sqlite = this.#sqlite;
    if (sqlite) {
      if (sqlite.finishRequest.run(...outcome, id).changes !== 1) return 'taken';
      const row = sqlite.debitGuarded.get(releaseMicro, userId, releaseMicro) as { balance_micro: number } | undefined;
      if (row === undefined) return 'short';
      sqlite.insertEntry.run(newId('led', o.finishedAt), userId, 'chat_release', id, releaseMicro, Number(row.balance_micro), note, o.finishedAt);
      return 'done';
    }
    const finished = await tx.executeQuery(CompiledQuery.raw(this.#finishRequest, [...outcome, id]));
    if (Number(finished.numAffectedRows ?? 0) !== 1) return 'taken';
    const balance = await this.#changeBalance(tx, userId, releaseMicro);
    if (balance === undefined) return 'short';
    await this.#entry(tx, userId, 'chat_release', id, releaseMicro, balance, note, o.finishedAt);
    return 'done';
  }

  /** After a hold that did not fit: which refusal (nothing was written). */
  async #refuse(tx: Tx, userId: string): Promise<never> {
    const user = await tx.executeQuery(CompiledQuery.raw(this.#userExists, [userId]));
    if (user.rows.length === 0) throw new AppError('user_not_found', `user ${userId} not found`);
    throw new AppError('insufficient_balance', 'insufficient balance for this request');
  }

  async #changeBalance(tx: Tx, userId: string, amountMicro: number): Promise<number | undefined> {
    const result = await tx.executeQuery<{ balance_micro: number }>(CompiledQuery.raw(this.#debitGuarded, [amountMicro, userId, amountMicro]));
    const row = result.rows[0];
    return row === undefined ? undefined : Number(row.balance_micro);
  }

  async #entry(tx: Tx, userId: string, kind: string, reference: string, amountMicro: number, balanceAfter: number, note: string, now: number): Promise<void> {
    // A plain insert: the reference is this request's own id and the row's compare-and-set admits one
    // writer, so a duplicate can only be a bug; its constraint error rolls the transaction back.
    await tx.executeQuery(CompiledQuery.raw(this.#insertEntry, [newId('led', now), userId, kind, reference, amountMicro, balanceAfter, note, now]));
  }
}

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
 * PostgreSQL settlement: $1 request id, $2–$17 the outcome (as #finishRequest), $18 release, $19 ledger
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

