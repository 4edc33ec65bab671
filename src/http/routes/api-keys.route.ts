import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { type ApiKeyLimitsBody, apiKeyLimitsSchema, limitsChangeOf } from '../api-key-limits.schema.ts';
import { presentApiKey } from '../presenters.ts';
import { apiKeySchema, envelope, errorResponse, idParam } from '../schemas.ts';

const keyBody = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', maxLength: 100 }, limits: apiKeyLimitsSchema },
};

interface KeyBody {
  name?: string;
  limits?: ApiKeyLimitsBody;
}

/**
 * The caller's own API keys: list, create (the key is in this one response only), rename, revoke.
 * The dashboard uses these; a key may manage its user's keys.
 */
export function registerApiKeyRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const createdKeySchema = { ...apiKeySchema, required: [...(apiKeySchema.required as string[]), 'key'], properties: { ...(apiKeySchema.properties as object), key: { type: 'string', description: 'Shown only in this response' } } };

  app.get('/api/v1/keys', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'List your API keys (by prefix; keys themselves are never shown again)',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Keys, newest first', schema: envelope({ type: 'array', items: apiKeySchema }) } },
      },
    },
    handler: async (request) => {
      const keys = await services.apiKeys.list(authOf(request).userId);
      const spent = await services.apiKeys.spendThisMonth(keys.map((k) => k.id));
      return { code: 200, data: keys.map((k) => ({ ...presentApiKey(k), spendThisMonthMicroUsd: spent.get(k.id) ?? 0 })) };
    },
  });

  app.post('/api/v1/keys', {
    onRequest: auth,
    schema: { body: keyBody },
    config: {
      docs: {
        summary: 'Create an API key',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'The new key, shown once', schema: envelope(createdKeySchema) }, 400: errorResponse('Invalid name') },
      },
    },
    handler: async (request) => {
      const body = (request.body ?? {}) as KeyBody;
      const created = await services.apiKeys.create(authOf(request).userId, body.name, Date.now(), limitsChangeOf(body.limits));
      return { code: 200, data: { ...presentApiKey(created.row), spendThisMonthMicroUsd: 0, key: created.key } };
    },
  });

  app.patch('/api/v1/keys/:keyId', {
    onRequest: auth,
    schema: { params: idParam('keyId', 'API key id'), body: keyBody },
    config: {
      docs: {
        summary: 'Rename an API key or change its limits (absent: unchanged, null: removed)',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Changed', schema: envelope(apiKeySchema) }, 400: errorResponse('Invalid name or limits'), 404: errorResponse('No such key') },
      },
    },
    handler: async (request) => {
      const { keyId } = request.params as { keyId: string };
      const { userId } = authOf(request);
      const body = (request.body ?? {}) as KeyBody;
      await services.apiKeys.update(userId, keyId, { name: body.name, limits: limitsChangeOf(body.limits) });
      const key = (await services.apiKeys.list(userId)).find((k) => k.id === keyId);
      if (!key) return { code: 200, data: null };
      const spent = await services.apiKeys.spendThisMonth([key.id]);
      return { code: 200, data: { ...presentApiKey(key), spendThisMonthMicroUsd: spent.get(key.id) ?? 0 } };
    },
  });

  app.delete('/api/v1/keys/:keyId', {
    onRequest: auth,
    schema: { params: idParam('keyId', 'API key id') },
    config: {
      docs: {
        summary: 'Revoke an API key (takes effect at once, in every process)',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Revoked', schema: envelope(apiKeySchema) }, 404: errorResponse('No such key') },
      },
    },
    handler: async (request) => {
      const { keyId } = request.params as { keyId: string };
      const revoked = await services.apiKeys.revoke(keyId, authOf(request).userId);
      return { code: 200, data: presentApiKey(revoked) };
    },
  });
}
