/**
 * The chat ledger's statements on SQLite, prepared once and run synchronously by the writer thread
 * (sqlite-chat-ledger.worker.ts) inside the transaction it opened for a batch. The rules are those of
 * domain/ledger/settlement.ts:
 * a hold reserves (`held_micro`, guarded) and records its row; a settlement deletes that row (the
 * compare-and-set), releases the hold and takes the cost in one guarded update, writes the request's
 * row and the `chat_charge` entry with the balance after it.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { LedgerKind } from '../../../domain/ledger/ledger-kinds.ts';
import { spendMonthOf } from '../../../domain/ledger/key-spend-period.ts';
import { collectable } from '../../../domain/ledger/settlement.ts';
import type { ChatRequestOutcome, HoldResult, NewChatRequest, SettleResult } from '../../../ports/ledger.port.ts';
import type { KeySpendMove } from './api-key-spend.repository.ts';
import { KEY_SPEND_RULE, numbered } from './key-spend-rule.ts';
import { MEMBER_SPEND_RULE, numberedMember } from './member-spend-rule.ts';

const HOLD_COLUMNS = 'id, user_id, api_key_id, model, protocol, stream, hold_micro, created_at, last_seen_at';

const REQUEST_COLUMNS =
  'id, user_id, api_key_id, model, protocol, stream, status, provider, upstream_model, attempts, input_tokens, output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, stop_reason, latency_ms, first_byte_ms, error_code, error_message, created_at, finished_at, last_seen_at, uncollected_micro, upstream_cost_micro';

/** The chat_requests row's values, in REQUEST_COLUMNS order: charged `cost`, `uncollected` not covered. */
function requestRow(r: NewChatRequest, o: ChatRequestOutcome, cost: number, uncollected = 0): Array<string | number | null> {
  return [
    r.id,
    r.userId,
    r.apiKeyId,
    r.model,
    r.protocol,
    r.stream ? 1 : 0,
    o.status,
    o.provider,
    o.upstreamModel,
    o.attempts,
    o.inputTokens,
    o.outputTokens,
    o.cachedTokens,
    o.cacheCreationTokens,
    o.usageEstimated ? 1 : 0,
    r.holdMicro,
    cost,
    o.stopReason,
    o.latencyMs,
    o.firstByteMs,
    o.errorCode,
    o.errorMessage === null ? null : o.errorMessage.slice(0, 1000),
    r.now,
    o.finishedAt,
    o.finishedAt,
    uncollected,
    o.upstreamCostMicro,
  ];
}


/** ?1 hold, ?2 user. */
const RESERVE = 'update users set held_micro = held_micro + ?1 where id = ?2 and balance_micro - held_micro >= ?1';
const USER_EXISTS = 'select 1 as found from users where id = ?';
const INSERT_HOLD = `insert into chat_holds (${HOLD_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const DELETE_HOLD = 'delete from chat_holds where id = ?';
/** ?1 hold, ?2 cost, ?3 user: releases the hold and takes the cost, if the balance still covers the other holds. */
const CHARGE = 'update users set held_micro = held_micro - ?1, balance_micro = balance_micro - ?2 where id = ?3 and balance_micro - ?2 >= held_micro - ?1 returning balance_micro';
const ACCOUNT = 'select balance_micro, held_micro from users where id = ?';
/** ?1 hold, ?2 collected, ?3 user: the charge above what the balance covers, after computing what it does. */
const CHARGE_COLLECTED = 'update users set held_micro = held_micro - ?1, balance_micro = balance_micro - ?2 where id = ?3 returning balance_micro';
const INSERT_REQUEST = `insert into chat_requests (${REQUEST_COLUMNS}) values (${REQUEST_COLUMNS.split(',').map(() => '?').join(', ')})`;
/** The per-key spend rule (key-spend-rule.ts): ?1 key, ?2 month, ?3 spent delta, ?4 held delta, ?5 guarded (1) or not (0). */
const MOVE_ORDER = ['key', 'month', 'spent', 'held', 'guarded'] as const;
const ENSURE_KEY_ROWS = numbered(KEY_SPEND_RULE.ensureRows, MOVE_ORDER);
const MOVE_CAP_ROW = numbered(KEY_SPEND_RULE.moveCapRow, MOVE_ORDER);
const MOVE_OTHER_ROW = numbered(KEY_SPEND_RULE.moveOtherRow, MOVE_ORDER);
/** ?1 key, ?2 month, ?3 the hold being released: what the cap leaves for its settlement (no row: no cap). */
const KEY_CAP_ROOM = numbered(KEY_SPEND_RULE.capRoom, ['key', 'month', 'amount']);
/** The member rule (member-spend-rule.ts), in the key rule's order: ?1 key, ?2 month, ?3 spent delta, ?4 held delta. */
const MEMBER_ORDER = ['key', 'month', 'spent', 'held'] as const;
const MOVE_MEMBER = numberedMember(MEMBER_SPEND_RULE.move, MEMBER_ORDER);
const UNMOVE_MEMBER = numberedMember(MEMBER_SPEND_RULE.unmove, MEMBER_ORDER);
const MEMBER_OVER_CAP = numberedMember(MEMBER_SPEND_RULE.overCap, ['key', 'month']);
const MEMBER_CAP_ROOM = numberedMember(MEMBER_SPEND_RULE.capRoom, ['key', 'month', 'amount']);
/** ?1 hold, ?2 user: gives back a reservation the key's cap refused. */
const UNRESERVE = 'update users set held_micro = held_micro - ?1 where id = ?2';
/** The charge names the member of the request's key (an organization's key; null otherwise, migration 042). */
const INSERT_ENTRY = `insert into ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at, member_id) values (?, ?, '${'chat_charge' satisfies LedgerKind}', ?, ?, ?, ?, ?, (select member_id from api_keys where id = ?))`;

export class SqliteChatStatements {
  readonly #reserve: StatementSync;
  readonly #userExists: StatementSync;
  readonly #insertHold: StatementSync;
  readonly #deleteHold: StatementSync;
  readonly #charge: StatementSync;
  readonly #account: StatementSync;
  readonly #chargeCollected: StatementSync;
  readonly #insertRequest: StatementSync;
  readonly #insertEntry: StatementSync;
  readonly #ensureKeyRows: StatementSync;
  readonly #moveCapRow: StatementSync;
  readonly #moveOtherRow: StatementSync;
  readonly #keyCapRoom: StatementSync;
  readonly #unreserve: StatementSync;
  readonly #moveMember: StatementSync;
  readonly #unmoveMember: StatementSync;
  readonly #memberOverCap: StatementSync;
  readonly #memberCapRoom: StatementSync;

  constructor(db: DatabaseSync) {
    this.#reserve = db.prepare(RESERVE);
    this.#userExists = db.prepare(USER_EXISTS);
    this.#insertHold = db.prepare(INSERT_HOLD);
    this.#deleteHold = db.prepare(DELETE_HOLD);
    this.#charge = db.prepare(CHARGE);
    this.#account = db.prepare(ACCOUNT);
    this.#chargeCollected = db.prepare(CHARGE_COLLECTED);
    this.#insertRequest = db.prepare(INSERT_REQUEST);
    this.#insertEntry = db.prepare(INSERT_ENTRY);
    this.#ensureKeyRows = db.prepare(ENSURE_KEY_ROWS);
    this.#moveCapRow = db.prepare(MOVE_CAP_ROW);
    this.#moveOtherRow = db.prepare(MOVE_OTHER_ROW);
    this.#keyCapRoom = db.prepare(KEY_CAP_ROOM);
    this.#unreserve = db.prepare(UNRESERVE);
    this.#moveMember = db.prepare(MOVE_MEMBER);
    this.#unmoveMember = db.prepare(UNMOVE_MEMBER);
    this.#memberOverCap = db.prepare(MEMBER_OVER_CAP);
    this.#memberCapRoom = db.prepare(MEMBER_CAP_ROOM);
  }

  /** The hold; a refusal writes nothing. */
  hold(r: NewChatRequest): HoldResult {
    if (this.#reserve.run(r.holdMicro, r.userId).changes !== 1) return this.#userExists.get(r.userId) === undefined ? 'user_not_found' : 'insufficient_balance';
    const moved = r.apiKeyId === null ? 'moved' : this.#moveKeySpend(r.apiKeyId, spendMonthOf(r.now), 0, r.holdMicro, true);
    if (moved !== 'moved') {
      this.#unreserve.run(r.holdMicro, r.userId);
      return moved === 'member_cap_reached' ? 'member_spend_cap_reached' : 'key_spend_cap_reached';
    }
    this.#insertHold.run(r.id, r.userId, r.apiKeyId, r.model, r.protocol, r.stream ? 1 : 0, r.holdMicro, r.now, r.now);
    return 'held';
  }

  /** The settlement of the request held as `r`; `entryId` names its ledger entry. */
  settle(r: NewChatRequest, o: ChatRequestOutcome, note: string, entryId: string): SettleResult {
    if (this.#deleteHold.run(r.id).changes !== 1) return 'taken';
    const month = spendMonthOf(r.now);
    // Never more than the key's cap leaves: the rest is recorded as uncollected, as above the balance.
    const rooms =
      r.apiKeyId === null
        ? []
        : [this.#keyCapRoom.get(r.apiKeyId, month, r.holdMicro), this.#memberCapRoom.get(r.apiKeyId, month, r.holdMicro)].flatMap((row) => (row === undefined ? [] : [Number((row as { room: number }).room)]));
    const cost = rooms.reduce((least, room) => Math.min(least, Math.max(0, room)), o.costMicro);
    let charged = this.#charge.get(r.holdMicro, cost, r.userId) as { balance_micro: number } | undefined;
    let collected = cost;
    if (charged === undefined) {
      // Above what the balance covers once this hold is released: take that much, never more.
      const account = this.#account.get(r.userId) as { balance_micro: number; held_micro: number };
      collected = collectable({ balanceMicro: Number(account.balance_micro), heldMicro: Number(account.held_micro) }, r.holdMicro, cost);
      charged = this.#chargeCollected.get(r.holdMicro, collected, r.userId) as { balance_micro: number };
    }
    if (r.apiKeyId !== null) this.#moveKeySpend(r.apiKeyId, month, collected, -r.holdMicro, false);
    this.#insertRequest.run(...requestRow(r, o, collected, o.costMicro - collected));
    // A plain insert: the reference is this request's own id and the hold's compare-and-set admits one
    // writer, so a duplicate can only be a bug; its constraint error rolls the transaction back.
    if (collected > 0) this.#insertEntry.run(entryId, r.userId, r.id, -collected, Number(charged.balance_micro), note, o.finishedAt, r.apiKeyId);
    return collected === o.costMicro ? 'done' : { uncollectedMicro: o.costMicro - collected };
  }

  /**
   * Moves the key's rows of 'total' and `month` (key-spend-rule.ts) and its member's row of `month`
   * (member-spend-rule.ts); `guarded`: only within both caps. Refused: nothing moved.
   */
  #moveKeySpend(keyId: string, month: string, spentDelta: number, heldDelta: number, guarded: boolean): KeySpendMove {
    // Each statement is bound with as many values as its highest parameter (SQLite refuses more).
    this.#ensureKeyRows.run(keyId, month);
    if (this.#moveCapRow.run(keyId, month, spentDelta, heldDelta, guarded ? 1 : 0).changes !== 1) return 'key_cap_reached';
    this.#moveMember.run(keyId, month, spentDelta, heldDelta);
    if (guarded && this.#memberOverCap.get(keyId, month) !== undefined) {
      this.#unmoveMember.run(keyId, month, spentDelta, heldDelta);
      this.#moveCapRow.run(keyId, month, -spentDelta, -heldDelta, 0);
      return 'member_cap_reached';
    }
    this.#moveOtherRow.run(keyId, month, spentDelta, heldDelta);
    return 'moved';
  }
}
