import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { ownerOf } from '../../../services/agent/agent-caller.ts';
import type { AppServices } from '../../app-services.ts';
import type { StorageOwner } from '../../../services/storage/storage-files.service.ts';
import type { StoragePayer } from '../../../services/storage/storage-subscriptions.service.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import {
  acceptedOperationView,
  autoRenewBody,
  filePageView,
  importAssetBody,
  quoteBody,
  retainBody,
  storageAccountView,
  storageFileView,
  storageOperationView,
  storagePlanView,
  storageQuoteView,
  storageSubscriptionView,
  subscribeBody,
  subscribeView,
} from './agent-storage.schemas.ts';

const idempotencyHeader = { type: 'object', properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 200 } } };

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (Array.isArray(key)) throw new AppError('invalid_input', 'send one Idempotency-Key header', { param: 'Idempotency-Key' });
  return key;
}

/** Paid storage (SPEC rule 18 and the storage endpoints): plans, quotes, subscriptions, retained files. */
export function registerAgentStorageRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const owner = (request: FastifyRequest): StorageOwner => ownerOf(agentCaller(request, services));
  const { subscriptions, files } = services.storage;
  const payer = (request: FastifyRequest): StoragePayer => {
    const caller = agentCaller(request, services);
    return { userId: caller.userId, keyId: caller.keyId };
  };

  app.get('/api/v1/agent/storage/plans', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'The monthly storage plans',
        description: 'Paid storage keeps retained copies and project files without the 3-day limit. Prices are per calendar month, charged from the shared balance.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: { 200: { description: 'The plans', schema: envelope({ type: 'object', required: ['plans'], properties: { plans: { type: 'array', items: storagePlanView } } }) } },
      },
    },
    handler: async () => ({ code: 200, data: { plans: subscriptions.plans() } }),
  });

  app.get('/api/v1/agent/storage/subscription', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Your storage subscription (null when none) and its latest charges',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: { 200: { description: 'The subscription and charges', schema: envelope(storageAccountView) } },
      },
    },
    handler: async (request) => ({ code: 200, data: await subscriptions.account(owner(request).userId) }),
  });

  app.patch('/api/v1/agent/storage/subscription', {
    onRequest: auth,
    schema: { body: autoRenewBody },
    config: {
      docs: {
        summary: 'Turn renewal on or off',
        description: 'Cancelling renewal keeps the files and the paid capacity until the period ends; then a 72-hour grace period starts (read and export only), after which the files are deleted.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The subscription', schema: envelope(storageSubscriptionView) },
          402: errorResponse('The subscription is not active (storage_plan_required): pay with a quote'),
          404: errorResponse('No subscription'),
          409: errorResponse('expectedVersion is stale (version_conflict)'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await subscriptions.setAutoRenew(payer(request), request.body) }),
  });

  app.post('/api/v1/agent/storage/quote', {
    onRequest: auth,
    schema: { body: quoteBody },
    config: {
      docs: {
        summary: 'Price a plan for you now: amount, balance after payment, period',
        description:
          'new: a month from now; upgrade: the price difference for the rest of the paid period, rounded down to the micro-USD, billing date unchanged; downgrade: nothing now, the smaller plan from the next renewal; during grace: a month from the end of the unpaid period. A quote holds for 15 minutes and is used once.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The quote', schema: envelope(storageQuoteView) },
          400: errorResponse('Unknown plan'),
          409: errorResponse('Your files would not fit the plan (storage_quota_exceeded)'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await subscriptions.quote(owner(request).userId, request.body) }),
  });

  app.post('/api/v1/agent/storage/subscribe', {
    onRequest: auth,
    schema: { body: subscribeBody, headers: { ...idempotencyHeader, required: ['idempotency-key'] } },
    config: {
      docs: {
        summary: 'Carry out a quote: the charge is a ledger entry like any other',
        description: 'The same Idempotency-Key and body replay the first answer (and charge nothing again); another body with the key is 409 idempotency_key_reused.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The subscription and the charge (null when nothing was due)', schema: envelope(subscribeView) },
          400: errorResponse('Invalid body or missing Idempotency-Key'),
          402: errorResponse('insufficient_balance, or the API key\'s spend cap (key_spend_cap_reached); nothing was charged'),
          404: errorResponse('Unknown quote'),
          409: errorResponse('The quote was used or expired (storage_quote_invalid), or the subscription changed since it (version_conflict)'),
          429: errorResponse('The API key\'s requests per minute or concurrent requests (rate_limited)'),
        },
      },
    },
    handler: async (request) => {
      // A charge: the key's door (concurrency, rate) as for every spending route; the cap is the ledger's.
      const release = await services.keyDoor.admit(payer(request).keyId ?? undefined, undefined, 'chat');
      const data = await subscriptions.subscribe(payer(request), request.body, idempotencyKeyOf(request)).finally(release);
      return { code: 200, data };
    },
  });

  app.post('/api/v1/agent/storage/retain', {
    onRequest: auth,
    schema: { body: retainBody, headers: idempotencyHeader },
    config: {
      docs: {
        summary: 'Copy a generation\'s file or an artifact into paid storage (202: accepted, not yet copied)',
        description:
          'Poll GET /agent/storage/operations/{operationId}. Idempotent: the same Idempotency-Key (or, without one, the same source) gives the same operation and one copy. Needs an active plan with room for the file.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: {
          202: { description: 'Accepted', schema: envelope(acceptedOperationView) },
          400: errorResponse('Invalid body'),
          402: errorResponse('No active storage plan (storage_plan_required)'),
          404: errorResponse('The source is not yours or no longer kept (source_not_found), checked before the plan'),
          409: errorResponse('The file does not fit the quota (storage_quota_exceeded), or the key was used with another body'),
        },
      },
    },
    handler: async (request, reply) => {
      const data = await files.retain(owner(request), request.body, idempotencyKeyOf(request));
      reply.code(202);
      return { code: 202, data };
    },
  });

  app.get('/api/v1/agent/storage/operations/:operationId', {
    onRequest: auth,
    schema: { params: idParam('operationId', 'Storage operation id (sop_…)') },
    config: {
      docs: {
        summary: 'A storage operation (retain or asset import): pending, completed with its file, or failed with why',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: { 200: { description: 'The operation', schema: envelope(storageOperationView) }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await files.operation(owner(request), (request.params as { operationId: string }).operationId) }),
  });

  app.get('/api/v1/agent/storage/files', {
    onRequest: auth,
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { cursor: { type: 'string', maxLength: 200 }, limit: { type: 'string', maxLength: 4 }, projectId: { type: 'string', maxLength: 200 } },
      },
    },
    config: {
      docs: {
        summary: 'Your files in paid storage, newest first (cursor pages)',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: { 200: { description: 'A page', schema: envelope(filePageView) }, 400: errorResponse('Bad cursor or limit') },
      },
    },
    handler: async (request) => ({ code: 200, data: await files.list(owner(request), request.query as { cursor?: string; limit?: string; projectId?: string }) }),
  });

  app.post('/api/v1/agent/projects/:projectId/assets/import', {
    onRequest: auth,
    schema: { params: idParam('projectId', 'Project id'), body: importAssetBody, headers: { ...idempotencyHeader, required: ['idempotency-key'] } },
    config: {
      docs: {
        summary: 'Copy an artifact, a generation\'s file or an upload into the project\'s assets (202: accepted, not yet copied)',
        description:
          'The source is exactly one of {artifactId}, {generationId, outputIndex?} or {uploadId} (a completed POST /api/v1/playground/uploads). A separate copy in paid storage: deleting the source (or its 3 days running out) keeps it. Poll GET /agent/storage/operations/{operationId}; the asset then appears in GET /agent/projects/{id}/assets and GET /agent/storage/files. The same Idempotency-Key replays the same operation and makes one copy. Needs an active storage plan with room.',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: {
          202: { description: 'Accepted', schema: envelope(acceptedOperationView) },
          400: errorResponse('Invalid body or missing Idempotency-Key'),
          402: errorResponse('No active storage plan (storage_plan_required)'),
          404: errorResponse('Not your project (not_found), or the source names nothing of yours that is still kept (source_not_found, answered before the plan is checked)'),
          409: errorResponse('The file does not fit the quota (storage_quota_exceeded), or the key was used with another body'),
        },
      },
    },
    handler: async (request, reply) => {
      const data = await services.storage.assets.import(owner(request), (request.params as { projectId: string }).projectId, request.body, idempotencyKeyOf(request));
      reply.code(202);
      return { code: 202, data };
    },
  });

  const fileParams = idParam('fileId', 'Storage file id (sf_…)');
  const fileId = (request: FastifyRequest) => (request.params as { fileId: string }).fileId;

  app.get('/api/v1/agent/storage/files/:fileId', {
    onRequest: auth,
    schema: { params: fileParams },
    config: {
      docs: { summary: 'One of your files', tags: ['Agent storage'], auth: 'apiKey', responses: { 200: { description: 'The file', schema: envelope(storageFileView) }, 404: errorResponse('Not found') } },
    },
    handler: async (request) => ({ code: 200, data: await files.get(owner(request), fileId(request)) }),
  });

  app.delete('/api/v1/agent/storage/files/:fileId', {
    onRequest: auth,
    schema: { params: fileParams },
    config: {
      docs: {
        summary: 'Delete a file: its quota is free at once, with no charge',
        tags: ['Agent storage'],
        auth: 'apiKey',
        responses: { 200: { description: 'Deleted' }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await files.delete(owner(request), fileId(request)) }),
  });
}
