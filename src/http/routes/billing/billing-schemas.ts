import type { CheckoutRow } from '../../../adapters/db/repositories/payments.repository.ts';
import type { LinkedEntry } from '../../../services/billing/account-ledger.service.ts';
import { MICRO_PER_CENT } from '../../../domain/money.ts';
import { iso } from '../../schemas.ts';

type JsonSchema = Record<string, unknown>;

const micro = (description: string): JsonSchema => ({ type: 'string', pattern: '^-?[0-9]+$', description: `${description}, integer micro-USD as a decimal string` });

export const accountLedgerEntrySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'kind', 'amountMicroUsd', 'balanceAfterMicroUsd', 'note', 'createdAt', 'link'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', description: 'credit, initial_credit, topup_credit, redeem_credit, generation_debit, generation_refund, chat_charge, …' },
    amountMicroUsd: micro('Signed: positive adds money'),
    balanceAfterMicroUsd: micro('The balance right after this entry'),
    note: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
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
