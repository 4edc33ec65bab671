import type { FastifyInstance } from 'fastify';
import type { RedeemCodeRow } from '../../../adapters/db/repositories/redeem-codes.repository.ts';
import { invalidInput } from '../../../domain/errors.ts';
import { centsToMicro, MICRO_PER_CENT } from '../../../domain/money.ts';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { errorResponse, idParam, iso } from '../../schemas.ts';

const redeemCodeSchema = {
  type: 'object',
  required: ['id', 'codeHint', 'amountCents', 'maxRedemptions', 'redemptions', 'expiresAt', 'disabledAt', 'note', 'createdAt', 'status'],
  properties: {
    id: { type: 'string' },
    code: { type: 'string', description: 'Only in the answer to the create: the code is stored as a hash' },
    codeHint: { type: 'string', description: 'The last 4 characters' },
    amountCents: { type: 'integer' },
    maxRedemptions: { type: 'integer' },
    redemptions: { type: 'integer' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
    disabledAt: { type: ['string', 'null'], format: 'date-time' },
    note: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    status: { enum: ['active', 'used_up', 'expired', 'disabled'] },
  },
};

function presentRedeemCode(row: RedeemCodeRow, now: number = Date.now()) {
  const status =
    row.disabled_at !== null ? 'disabled' : row.expires_at !== null && row.expires_at <= now ? 'expired' : row.redemptions >= row.max_redemptions ? 'used_up' : 'active';
  return {
    id: row.id,
    codeHint: row.code_hint,
    amountCents: Math.round(row.amount_micro / MICRO_PER_CENT),
    maxRedemptions: row.max_redemptions,
    redemptions: row.redemptions,
    expiresAt: iso(row.expires_at),
    disabledAt: iso(row.disabled_at),
    note: row.note,
    createdAt: iso(row.created_at),
    status,
  };
}

/** Redeem codes an operator hands out (amounts in cents, as the rest of the admin API). */
export function registerAdminRedeemCodeRoutes(app: FastifyInstance, services: AppServices): void {
  const admin = requireAdmin(services);
  const codes = services.billing.redeemCodes;

  app.post('/admin/v1/redeem-codes', {
    onRequest: admin,
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['amountCents'],
        properties: {
          amountCents: { type: 'integer', minimum: 1, maximum: 100_000_000, description: 'Credited to each user who redeems it' },
          maxRedemptions: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, description: 'How many users may redeem it (each once)' },
          expiresAt: { type: 'string', format: 'date-time', maxLength: 40, description: 'Optional; refused after this time' },
          code: { type: 'string', minLength: 6, maxLength: 64, description: 'Your own code (letters, digits, - and _); generated when absent' },
          note: { type: 'string', maxLength: 500 },
        },
      },
    },
    config: {
      docs: {
        summary: 'Create a redeem code; the code is shown only in this answer',
        tags: ['Admin'],
        auth: 'admin',
        responses: { 200: { description: 'The code', schema: redeemCodeSchema }, 400: errorResponse('A bad amount, expiry or code'), 409: errorResponse('That code exists already') },
      },
    },
    handler: async (request) => {
      const body = request.body as { amountCents: number; maxRedemptions?: number; expiresAt?: string; code?: string; note?: string };
      const expiresAt = body.expiresAt === undefined ? null : Date.parse(body.expiresAt);
      if (expiresAt !== null && Number.isNaN(expiresAt)) throw invalidInput('expiresAt must be an ISO 8601 date-time', 'expiresAt');
      const created = await codes.create({
        amountMicro: centsToMicro(body.amountCents),
        maxRedemptions: body.maxRedemptions ?? 1,
        expiresAt,
        note: body.note ?? null,
        code: body.code,
      });
      return { ...presentRedeemCode(created.row), code: created.code };
    },
  });

  app.get('/admin/v1/redeem-codes', {
    onRequest: admin,
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { before: { type: 'string', maxLength: 100 }, limit: { type: 'string', pattern: '^[0-9]{1,4}$' } },
      },
    },
    config: {
      docs: {
        summary: 'Redeem codes, newest first (cursor: the last id of the previous page)',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: {
            description: 'A page of codes',
            schema: { type: 'object', required: ['data', 'nextCursor'], properties: { data: { type: 'array', items: redeemCodeSchema }, nextCursor: { type: ['string', 'null'] } } },
          },
        },
      },
    },
    handler: async (request) => {
      const query = request.query as { before?: string; limit?: string };
      const limit = Math.min(Math.max(Number(query.limit ?? 100), 1), 1000);
      const rows = await codes.list(limit, query.before);
      return { data: rows.map((r) => presentRedeemCode(r)), nextCursor: rows.length === limit ? (rows.at(-1)?.id ?? null) : null };
    },
  });

  app.post('/admin/v1/redeem-codes/:codeId/disable', {
    onRequest: admin,
    schema: { params: idParam('codeId', 'Redeem code id') },
    config: {
      docs: {
        summary: 'Withdraw a redeem code: no further redemptions (credits already made stay)',
        tags: ['Admin'],
        auth: 'admin',
        responses: { 200: { description: 'The code', schema: redeemCodeSchema }, 404: errorResponse('No such code') },
      },
    },
    handler: async (request) => {
      const { codeId } = request.params as { codeId: string };
      return presentRedeemCode(await codes.disable(codeId));
    },
  });
}
