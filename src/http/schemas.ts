/** JSON Schemas shared by route docs and validation. */
import { presentedLimitsSchema } from './api-key-limits.schema.ts';

export type JsonSchema = Record<string, unknown>;

export const errorEnvelopeSchema: JsonSchema = {
  type: 'object',
  required: ['code', 'error'],
  properties: {
    code: { type: 'integer', description: 'HTTP status' },
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string', description: 'Human-readable, stable English' },
        type: { type: 'string' },
        code: { type: 'string', description: 'Match on this: invalid_input, unauthorized, insufficient_balance, task_not_found, …' },
        param: { type: 'string', description: 'The offending field, when there is one' },
      },
    },
    requestId: { type: 'string' },
  },
};

export function envelope(data: JsonSchema): JsonSchema {
  return { type: 'object', required: ['code', 'data'], properties: { code: { type: 'integer' }, data } };
}

export function errorResponse(description: string): { description: string; schema: JsonSchema } {
  return { description, schema: errorEnvelopeSchema };
}

export const idParam = (name: string, description: string): JsonSchema => ({
  type: 'object',
  required: [name],
  properties: { [name]: { type: 'string', minLength: 1, maxLength: 200, description } },
});

export const userDataSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'balance', 'createdAt'],
  properties: {
    id: { type: 'string' },
    email: { type: ['string', 'null'] },
    balance: { type: 'integer', description: 'USD cents, rounded down' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

/** A user with its role, as the session and the admin API show it. */
export const userWithRoleSchema: JsonSchema = {
  ...userDataSchema,
  required: [...(userDataSchema.required as string[]), 'isAdmin'],
  properties: { ...(userDataSchema.properties as JsonSchema), isAdmin: { type: 'boolean', description: 'Administers the gateway (may use the admin API)' } },
};

export const apiKeySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt', 'limits', 'manageKeys'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string', description: 'First characters of the key' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
    limits: presentedLimitsSchema,
    manageKeys: { type: 'boolean', description: 'A management key may manage the keys of its user through /api/v1/keys, within its own limits' },
    spendThisMonthMicroUsd: { type: 'integer', description: "What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys)" },
  },
};

export const ledgerEntrySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'userId', 'kind', 'reference', 'amountMicroUsd', 'amountCents', 'balanceAfterMicroUsd', 'balanceAfterCents', 'note', 'createdAt'],
  properties: {
    id: { type: 'string' },
    userId: { type: 'string' },
    kind: { type: 'string' },
    reference: { type: 'string' },
    amountMicroUsd: { type: 'string', description: 'Signed integer micro-USD' },
    amountCents: { type: 'number', description: 'Signed USD cents (may be fractional)' },
    balanceAfterMicroUsd: { type: 'string' },
    balanceAfterCents: { type: 'integer' },
    note: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
