import type { BillingStore, HoldRow, LedgerPageQuery, OpenRunRow } from '../../ports/billing-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { AppError } from '../../domain/errors.ts';
import type { LedgerKind } from '../../domain/ledger/ledger-kinds.ts';
import type { LedgerEntry } from '../../ports/ledger.port.ts';

/** What an entry is about, so a page can link to it. */
export type LedgerLink =
  | { type: 'generation'; id: string; agentConversationId: string | null }
  /** `model`: what the request asked for, so a page can name it (null when the request is not found). */
  | { type: 'chat_request'; id: string; agentConversationId: string | null; model: string | null }
  | { type: 'topup'; id: string; checkoutId: string | null }
  | { type: 'redeem_code'; id: string }
  /** A paid storage charge: the reference names the quote or the renewed period. */
  | { type: 'storage'; id: string }
  | { type: 'credit'; id: null };

export interface LinkedEntry {
  entry: LedgerEntry;
  link: LedgerLink;
}

const GENERATION_KINDS = new Set<string>(['generation_debit', 'generation_refund'] satisfies LedgerKind[]);
const CHAT_KINDS = new Set<string>(['chat_charge', 'chat_hold', 'chat_release'] satisfies LedgerKind[]);

export interface AccountSnapshot {
  balanceMicro: number;
  heldMicro: number;
  holds: Array<HoldRow & { agentConversationId: string | null }>;
  openRuns: OpenRunRow[];
}

/** The signed-in user's own books: ledger entries with what each is about, and what is held right now. */
export class AccountLedgerService {
  readonly #billing: BillingStore;
  readonly #uow: UnitOfWork;

  constructor(billing: BillingStore, uow: UnitOfWork) {
    this.#billing = billing;
    this.#uow = uow;
  }

  async entries(userId: string, options: LedgerPageQuery): Promise<LinkedEntry[]> {
    const db = this.#uow.direct;
    const rows = await this.#billing.listUserEntries(db, userId, options);
    const operationRefs = rows.filter((r) => GENERATION_KINDS.has(r.kind) || CHAT_KINDS.has(r.kind)).map((r) => r.reference);
    const chatRefs = rows.filter((r) => CHAT_KINDS.has(r.kind)).map((r) => r.reference);
    const sessions = rows.filter((r) => r.kind === 'topup_credit').map((r) => r.reference);
    const [origins, checkouts, models] = await Promise.all([
      this.#billing.agentOriginsOf(db, userId, [...new Set(operationRefs)]),
      this.#billing.checkoutIdsOf(db, userId, sessions),
      this.#billing.chatRequestModelsOf(db, userId, [...new Set(chatRefs)]),
    ]);
    return rows.map((entry) => ({ entry, link: linkOf(entry, { origins, checkouts, models }) }));
  }

  async snapshot(userId: string): Promise<AccountSnapshot> {
    // One snapshot: the balance, what is held and the holds behind it always agree.
    const books = await this.#billing.readAccountBooks(this.#uow.direct, userId);
    if (!books) throw new AppError('user_not_found', 'user not found');
    const { user, holds, openRuns, origins } = books;
    return {
      balanceMicro: Number(user.balance_micro),
      heldMicro: Number(user.held_micro),
      holds: holds.map((h) => ({ ...h, agentConversationId: origins.get(h.id)?.conversationId ?? null })),
      openRuns,
    };
  }
}

interface LinkSources {
  origins: Map<string, { conversationId: string }>;
  checkouts: Map<string, string>;
  models: Map<string, string>;
}

function linkOf(entry: LedgerEntry, { origins, checkouts, models }: LinkSources): LedgerLink {
  const agentConversationId = origins.get(entry.reference)?.conversationId ?? null;
  if (GENERATION_KINDS.has(entry.kind)) return { type: 'generation', id: entry.reference, agentConversationId };
  if (CHAT_KINDS.has(entry.kind)) return { type: 'chat_request', id: entry.reference, agentConversationId, model: models.get(entry.reference) ?? null };
  if (entry.kind === 'topup_credit') return { type: 'topup', id: entry.reference, checkoutId: checkouts.get(entry.reference) ?? null };
  // redeemReference(code id, user id): the code id has no colon.
  if (entry.kind === 'redeem_credit') return { type: 'redeem_code', id: entry.reference.split(':')[0] ?? entry.reference };
  if (entry.kind === 'storage_charge') return { type: 'storage', id: entry.reference };
  return { type: 'credit', id: null };
}
