import type { FastifyInstance } from 'fastify';
import { listEntries } from '../../../adapters/db/ledger/ledger.repository.ts';
import { invalidInput } from '../../../domain/errors.ts';
import { centsToMicro } from '../../../domain/money.ts';
import { accountPortsOf } from '../../../adapters/db/stores/account-ports.ts';
import { getUser } from '../../../adapters/db/stores/account-store.ts';
import type { AppServices } from '../../app-services.ts';
import { grantCredit } from '../../../services/credits.service.ts';
import { requireAdmin } from '../../auth.ts';
import { presentLedgerEntry } from '../../presenters.ts';
import { errorResponse, idParam, ledgerEntrySchema } from '../../schemas.ts';

export function registerAdminLedgerRoutes(app: FastifyInstance, services: AppServices): void {
  const admin = requireAdmin(services);

  app.post('/admin/v1/users/:userId/credits', {
    onRequest: admin,
    schema: {
      params: idParam('userId', 'User id'),
      headers: {
        type: 'object',
        properties: { 'idempotency-key': { type: 'string', description: 'Required; a retry with the same key and body returns the same entry' } },
      },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['amountCents'],
        properties: {
          amountCents: { type: 'integer', minimum: -1_000_000_000, maximum: 1_000_000_000, description: 'Positive adds money; negative removes it (never below zero)' },
          note: { type: 'string', maxLength: 500 },
        },
      },
    },
    config: {
      docs: {
        summary: 'Credit (or correct) a balance, once per Idempotency-Key',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'The ledger entry (the first one, for a retry)', schema: ledgerEntrySchema },
          400: errorResponse('Missing Idempotency-Key or invalid amount'),
          402: errorResponse('A negative amount larger than the balance'),
          404: errorResponse('No such user'),
          409: errorResponse('Idempotency-Key reused with a different body'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = request.params as { userId: string };
      const body = request.body as { amountCents: number; note?: string };
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string') throw invalidInput('the Idempotency-Key header is required', 'Idempotency-Key');
      const posted = await grantCredit(accountPortsOf(services.database.db), {
        userId,
        amountMicro: centsToMicro(body.amountCents),
        note: body.note ?? null,
        idempotencyKey: key,
      });
      if (posted.created) services.metrics.ledgerEntries.inc({ kind: 'credit' });
      return presentLedgerEntry(posted.entry);
    },
  });

  app.get('/admin/v1/users/:userId/ledger', {
    onRequest: admin,
    schema: {
      params: idParam('userId', 'User id'),
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { before: { type: 'string', maxLength: 100 }, limit: { type: 'string', pattern: '^[0-9]{1,4}$' } },
      },
    },
    config: {
      docs: {
        summary: "A user's ledger, newest first (cursor: the last id of the previous page)",
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: {
            description: 'The balance, what running requests hold, and a page of entries',
            schema: {
              type: 'object',
              required: ['userId', 'balanceMicroUsd', 'heldMicroUsd', 'data', 'nextCursor'],
              properties: {
                userId: { type: 'string' },
                balanceMicroUsd: { type: 'string', description: 'Integer micro-USD' },
                heldMicroUsd: { type: 'string', description: 'Reserved by requests still running, integer micro-USD' },
                data: { type: 'array', items: ledgerEntrySchema },
                nextCursor: { type: ['string', 'null'] },
              },
            },
          },
          404: errorResponse('No such user'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = request.params as { userId: string };
      const query = request.query as { before?: string; limit?: string };
      const user = await getUser(services.database.db, userId);
      const limit = Math.min(Math.max(Number(query.limit ?? 100), 1), 1000);
      const entries = await listEntries(services.database.db, userId, limit, query.before);
      return {
        userId,
        balanceMicroUsd: String(user.balance_micro),
        heldMicroUsd: String(user.held_micro),
        data: entries.map(presentLedgerEntry),
        nextCursor: entries.length === limit ? (entries.at(-1)?.id ?? null) : null,
      };
    },
  });
}
