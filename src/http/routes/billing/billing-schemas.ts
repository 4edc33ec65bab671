import type { CheckoutRow } from '../../../adapters/db/repositories/payments.repository.ts';
import type { LinkedEntry } from '../../../services/billing/account-ledger.service.ts';
import { invalidInput } from '../../../domain/errors.ts';
import { LEDGER_KINDS } from '../../../domain/ledger/ledger-kinds.ts';
import { MICRO_PER_CENT } from '../../../domain/money.ts';
import { iso, type JsonSchema } from '../../schemas.ts';

const micro = (description: string): JsonSchema => ({ type: 'string', pattern: '^-?[0-9]+$', description: `${description}, integer micro-USD as a decimal string` });

export const accountLedgerEntrySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'kind', 'amountMicroUsd', 'balanceAfterMicroUsd', 'note', 'createdAt', 'memberId', 'link'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', description: 'credit, initial_credit, topup_credit, redeem_credit, generation_debit, generation_refund, chat_charge, …' },
    amountMicroUsd: micro('Signed: positive adds money'),
    balanceAfterMicroUsd: micro('The balance right after this entry'),
    note: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    memberId: { type: ['string', 'null'], description: "On an organization's account: the member whose key or session moved the money; null on a person's account" },
    link: {
      type: 'object',
      required: ['type', 'id'],
      description: 'What the entry is about: a generation task, a chat request (and the agent conversation that made it), a top-up or a redeem code',
      properties: {
        type: { enum: ['generation', 'chat_request', 'topup', 'redeem_code', 'storage', 'credit'] },
        id: { type: ['string', 'null'] },
        agentConversationId: { type: ['string', 'null'] },
        checkoutId: { type: ['string', 'null'] },
        model: { type: ['string', 'null'], description: 'chat_request: the model the request asked for' },
      },
    },
  },
};

export const checkoutSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'status', 'amountCents', 'amountMicroUsd', 'url', 'createdAt', 'completedAt'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['created', 'paid', 'expired', 'failed', 'review'], description: '`review`: paid with another amount than opened; nothing credited until the operator decides' },
    amountCents: { type: 'integer' },
    amountMicroUsd: micro('The amount credited when paid'),
    url: { type: ['string', 'null'], description: 'The payment page to send the payer to' },
    createdAt: { type: 'string', format: 'date-time' },
    completedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

export function presentAccountEntry({ entry, link }: LinkedEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    amountMicroUsd: String(entry.amount_micro),
    balanceAfterMicroUsd: String(entry.balance_after_micro),
    note: entry.note,
    createdAt: iso(entry.created_at),
    memberId: entry.member_id ?? null,
    link,
  };
}

export function presentCheckout(row: CheckoutRow) {
  return {
    id: row.id,
    status: row.status,
    amountCents: Math.round(row.amount_micro / MICRO_PER_CENT),
    amountMicroUsd: String(row.amount_micro),
    // A finished checkout's page is of no use any more.
    url: row.status === 'created' ? row.url : null,
    createdAt: iso(row.created_at),
    completedAt: iso(row.completed_at),
  };
}

/** The ledger page's query (the account's and an organization's). */
export const ledgerPageQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { type: 'string', maxLength: 300, description: `Comma-separated kinds: ${LEDGER_KINDS.join(', ')}` },
    limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 200, default 50' },
    cursor: { type: 'string', maxLength: 100, description: 'nextCursor of the previous page' },
  },
};

export interface LedgerPageParams {
  kind?: string;
  limit?: string;
  cursor?: string;
}

/** The page asked for, checked: a bad kind, limit or cursor is a 400. */
export function ledgerPageOf(query: LedgerPageParams): { limit: number; before: string | undefined; kinds: string[] | undefined } {
  const limit = Number(query.limit ?? 50);
  if (limit < 1 || limit > 200) throw invalidInput('limit must be from 1 to 200', 'limit');
  const kinds = query.kind ? query.kind.split(',').map((k) => k.trim()).filter((k) => k !== '') : undefined;
  for (const kind of kinds ?? []) {
    if (!(LEDGER_KINDS as readonly string[]).includes(kind)) throw invalidInput(`unknown kind ${JSON.stringify(kind.slice(0, 40))}; one of ${LEDGER_KINDS.join(', ')}`, 'kind');
  }
  if (query.cursor !== undefined && !/^led_[0-9a-z]{26}$/.test(query.cursor)) throw invalidInput('cursor is not a nextCursor of this endpoint', 'cursor');
  return { limit, before: query.cursor, kinds };
}

export function presentLedgerPage(entries: LinkedEntry[], limit: number) {
  return { items: entries.map(presentAccountEntry), nextCursor: entries.length === limit ? (entries.at(-1)?.entry.id ?? null) : null };
}
