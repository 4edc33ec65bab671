/**
 * The API shape of a key's limits (issue 21, item 15): money in micro-USD as everywhere in the
 * limits (the cap is exact), times in ISO 8601, null for "none". A request sets any subset; null
 * clears a limit.
 */
import type { ApiKeyLimitsChange } from '../domain/api-key-limits.ts';
import { invalidInput } from '../domain/errors.ts';

type JsonSchema = Record<string, unknown>;

export const apiKeyLimitsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    spendCapMicroUsd: { type: ['integer', 'null'], minimum: 0, description: 'Spend cap in micro-USD over everything charged through the key: requests, agent runs it started, storage plans it pays (holds of running requests count against it; 402 key_spend_cap_reached)' },
    spendCapPeriod: { type: ['string', 'null'], enum: ['total', 'month', null], description: "'total' (default) or 'month' (calendar month, UTC)" },
    expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'After this instant the key is invalid (401)' },
    allowedModels: { type: ['array', 'null'], items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 200, description: 'The only models the key may use, by a request or by an agent run it started (403, or a refused agent operation, otherwise)' },
    requestsPerMinute: { type: ['integer', 'null'], minimum: 1, description: 'Requests per minute, each operation of an agent run it started included (429 with Retry-After)' },
    tokensPerMinute: { type: ['integer', 'null'], minimum: 1, description: 'Input plus output tokens per minute of its text requests, those of agent runs it started included; a running request counts its prompt and max_tokens until it settles (429 with Retry-After)' },
    concurrentGenerations: { type: ['integer', 'null'], minimum: 1, description: 'Generations and text requests running at once, those of agent runs it started included (429)' },
  },
};

export const presentedLimitsSchema: JsonSchema = {
  ...apiKeyLimitsSchema,
  required: ['spendCapMicroUsd', 'spendCapPeriod', 'expiresAt', 'allowedModels', 'requestsPerMinute', 'tokensPerMinute', 'concurrentGenerations'],
};

/** What the body's `limits` asks to change. */
export interface ApiKeyLimitsBody {
  spendCapMicroUsd?: number | null;
  spendCapPeriod?: 'total' | 'month' | null;
  expiresAt?: string | null;
  allowedModels?: string[] | null;
  requestsPerMinute?: number | null;
  tokensPerMinute?: number | null;
  concurrentGenerations?: number | null;
}

export function limitsChangeOf(body: ApiKeyLimitsBody | undefined): ApiKeyLimitsChange {
  if (!body) return {};
  const change: ApiKeyLimitsChange = {};
  if (body.spendCapMicroUsd !== undefined) change.spendCapMicro = body.spendCapMicroUsd;
  if (body.spendCapPeriod !== undefined) change.spendCapPeriod = body.spendCapPeriod;
  if (body.expiresAt !== undefined) {
    const at = body.expiresAt === null ? null : Date.parse(body.expiresAt);
    if (at !== null && Number.isNaN(at)) throw invalidInput('expiresAt must be an ISO 8601 date-time', 'limits.expiresAt');
    change.expiresAt = at;
  }
  if (body.allowedModels !== undefined) change.allowedModels = body.allowedModels;
  if (body.requestsPerMinute !== undefined) change.requestsPerMinute = body.requestsPerMinute;
  if (body.tokensPerMinute !== undefined) change.tokensPerMinute = body.tokensPerMinute;
  if (body.concurrentGenerations !== undefined) change.concurrentGenerations = body.concurrentGenerations;
  return change;
}
