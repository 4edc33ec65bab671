import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { presentApiKey } from '../presenters.ts';
import { apiKeySchema, envelope, errorResponse, idParam } from '../schemas.ts';

const nameBody = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', maxLength: 100 } },
};

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
      return { code: 200, data: keys.map(presentApiKey) };
    },
  });

  app.post('/api/v1/keys', {
    onRequest: auth,
    schema: { body: nameBody },
    config: {
      docs: {
        summary: 'Create an API key',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'The new key, shown once', schema: envelope(createdKeySchema) }, 400: errorResponse('Invalid name') },
      },
    },
    handler: async (request) => {
      const body = (request.body ?? {}) as { name?: string };
      const created = await services.apiKeys.create(authOf(request).userId, body.name);
      return { code: 200, data: { ...presentApiKey(created.row), key: created.key } };
    },
  });

  app.patch('/api/v1/keys/:keyId', {
    onRequest: auth,
    schema: { params: idParam('keyId', 'API key id'), body: { ...nameBody, required: ['name'] } },
    config: {
      docs: { summary: 'Rename an API key', tags: ['Account'], auth: 'apiKey', responses: { 200: { description: 'Renamed' }, 404: errorResponse('No such key') } },
    },
    handler: async (request) => {
      const { keyId } = request.params as { keyId: string };
      const { userId } = authOf(request);
      await services.apiKeys.rename(userId, keyId, (request.body as { name: string }).name);
      const key = (await services.apiKeys.list(userId)).find((k) => k.id === keyId);
      return { code: 200, data: key ? presentApiKey(key) : null };
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
