/** JSON Schemas of the paid storage endpoints (request bodies and the response shapes for the docs). */
import { ASSET_ROLES } from '../../../services/storage/project-asset-import.ts';

type JsonSchema = Record<string, unknown>;

/** An answer object: every property is always present (null where it has no value). */
const view = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', required: Object.keys(properties), properties });

const microUsd = (description: string): JsonSchema => ({ type: 'string', description: `${description} (decimal integer string of micro-USD; 1000000 = USD 1)` });
const period: JsonSchema = view({ start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' } });
const source: JsonSchema = view({ type: { type: 'string', enum: ['generation', 'artifact', 'upload'] }, id: { type: 'string' }, outputIndex: { type: ['integer', 'null'] } });

export const storagePlanView: JsonSchema = view({
  planId: { type: 'string' },
  name: { type: 'string' },
  quotaBytes: { type: 'integer' },
  priceMicroUsd: microUsd('The monthly price'),
  interval: { type: 'string', enum: ['month'] },
});

export const storageSubscriptionView: JsonSchema = view({
  planId: { type: 'string' },
  planName: { type: 'string' },
  nextPlanId: { type: ['string', 'null'], description: 'A downgrade that takes effect at the next renewal' },
  status: { type: 'string', enum: ['active', 'grace', 'lapsed'], description: 'grace: the period ended unpaid; files can be read and exported, not added, until graceEndsAt; lapsed: files deleted' },
  quotaBytes: { type: 'integer' },
  usedBytes: { type: 'integer' },
  autoRenew: { type: 'boolean' },
  currentPeriod: period,
  renewsAt: { type: ['string', 'null'], format: 'date-time' },
  nextRenewalMicroUsd: { type: ['string', 'null'] },
  graceEndsAt: { type: ['string', 'null'], format: 'date-time' },
  version: { type: 'integer', description: 'The quotaVersion of quotes and subscribe' },
});

export const storageChargeView: JsonSchema = view({
  chargeId: { type: 'string' },
  planId: { type: 'string' },
  kind: { type: 'string', enum: ['subscribe', 'reactivate', 'upgrade', 'renewal'] },
  amountMicroUsd: microUsd('What was charged'),
  period,
  createdAt: { type: 'string', format: 'date-time' },
});

export const storageAccountView: JsonSchema = view({ subscription: { oneOf: [storageSubscriptionView, { type: 'null' }] }, charges: { type: 'array', items: storageChargeView } });

export const quoteBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['planId'],
  properties: { planId: { type: 'string', maxLength: 100, description: 'A plan of GET /agent/storage/plans' } },
};

export const storageQuoteView: JsonSchema = view({
  quoteId: { type: 'string' },
  planId: { type: 'string' },
  change: { type: 'string', enum: ['new', 'reactivate', 'upgrade', 'downgrade', 'unchanged'] },
  amountMicroUsd: microUsd('Charged on subscribe: a month for new and reactivate, the prorated difference for an upgrade, 0 otherwise'),
  balanceMicroUsd: microUsd('The spendable balance now'),
  balanceAfterMicroUsd: { type: 'string', description: 'The balance after paying (negative: top up first)' },
  period: { ...period, description: 'What the amount pays for (a downgrade: the period it starts)' },
  quotaVersion: { type: 'integer' },
  expiresAt: { type: 'string', format: 'date-time' },
});

export const subscribeBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['quoteId', 'quotaVersion', 'autoRenew'],
  properties: {
    quoteId: { type: 'string', maxLength: 100 },
    quotaVersion: { type: 'integer', minimum: 0, description: 'The quotaVersion of the quote (the subscription version it was priced on)' },
    autoRenew: { type: 'boolean', description: 'Renew from the balance at the end of each period' },
  },
};

export const subscribeView: JsonSchema = view({ subscription: storageSubscriptionView, charge: { oneOf: [storageChargeView, { type: 'null' }] } });

export const autoRenewBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['autoRenew', 'expectedVersion'],
  properties: { autoRenew: { type: 'boolean' }, expectedVersion: { type: 'integer', minimum: 1 } },
};

export const retainBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    generationId: { type: 'string', maxLength: 100, description: 'A generation (task) of yours whose files are still kept' },
    outputIndex: { type: 'integer', minimum: 0, maximum: 99, description: 'The position in its files (default 0)' },
    artifactId: { type: 'string', maxLength: 100, description: 'Or an agent artifact' },
  },
};

export const storageFileView: JsonSchema = view({
  fileId: { type: 'string' },
  name: { type: 'string' },
  mime: { type: 'string' },
  sizeBytes: { type: 'integer' },
  url: { type: 'string', description: 'A public object URL: anyone holding it can read the file until it is deleted' },
  kind: { type: 'string', enum: ['retained', 'project_asset'] },
  projectId: { type: ['string', 'null'] },
  source,
  createdAt: { type: 'string', format: 'date-time' },
});

export const acceptedOperationView: JsonSchema = view({ operationId: { type: 'string' }, status: { type: 'string', enum: ['pending', 'completed', 'failed'] }, type: { type: 'string', enum: ['retain', 'import'] } });

export const storageOperationView: JsonSchema = view({
  operationId: { type: 'string' },
  type: { type: 'string', enum: ['retain', 'import'] },
  status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
  source,
  projectId: { type: ['string', 'null'] },
  role: { type: ['string', 'null'] },
  file: { oneOf: [storageFileView, { type: 'null' }] },
  error: { oneOf: [view({ code: { type: 'string' }, message: { type: 'string' } }), { type: 'null' }] },
  createdAt: { type: 'string', format: 'date-time' },
  finishedAt: { type: ['string', 'null'], format: 'date-time' },
});

export const filePageView: JsonSchema = view({ items: { type: 'array', items: storageFileView }, nextCursor: { type: ['string', 'null'] } });

export const importAssetBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  description: 'Exactly one source: {artifactId}, {generationId, outputIndex?} or {uploadId}, and a role',
  properties: {
    artifactId: { type: 'string', maxLength: 100, description: 'An artifact of yours on this storefront' },
    generationId: { type: 'string', maxLength: 100, description: 'Or a generation (task) of yours whose files are still kept' },
    outputIndex: { type: 'integer', minimum: 0, maximum: 99, description: 'With generationId: the position in its files (default 0)' },
    uploadId: { type: 'string', maxLength: 100, description: 'Or a completed upload of yours (POST /api/v1/playground/uploads, att_…)' },
    role: { type: 'string', enum: [...ASSET_ROLES], description: 'What the asset is for in the brand' },
  },
};
