import type { FastifyInstance } from 'fastify';
import { type KeyAuthority, keyAuthority, OWNER_AUTHORITY } from '../../domain/api-key-authority.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { type ApiKeyLimitsBody, apiKeyLimitsSchema, limitsChangeOf } from '../api-key-limits.schema.ts';
import { presentApiKey } from '../presenters.ts';
import { apiKeySchema, envelope, errorResponse, idParam } from '../schemas.ts';

const keyBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 100 },
    limits: apiKeyLimitsSchema,
    manageKeys: { type: 'boolean', description: 'A management key may manage the keys of its user, within its own limits. Only the owner (a dashboard session) sets it; an API key never grants it' },
  },
};

interface KeyBody {
  name?: string;
  limits?: ApiKeyLimitsBody;
  manageKeys?: boolean;
}

/** The session is the owner; an API key acts as itself (issue 29, item 1: only a management key manages keys). */
function authorityOf(auth: { keyId: string | undefined }): KeyAuthority {
  return auth.keyId === undefined ? OWNER_AUTHORITY : keyAuthority(auth.keyId);
}

const REFUSED = 'This API key is not a management key, or the change would reach past its own limits';

/**
 * The caller's own API keys: list, create (the key is in this one response only), rename, change
 * limits, revoke. The dashboard uses these with its session. An API key manages keys only when it is
 * a management key, and only keys no wider than itself (src/domain/api-key-authority.ts); any other
 * key lists only itself.
 */
export function registerApiKeyRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const createdKeySchema = { ...apiKeySchema, required: [...(apiKeySchema.required as string[]), 'key'], properties: { ...(apiKeySchema.properties as object), key: { type: 'string', description: 'Shown only in this response' } } };

  app.get('/api/v1/keys', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'List your API keys (by prefix; keys themselves are never shown again). A key that is not a management key lists only itself',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Keys, newest first', schema: envelope({ type: 'array', items: apiKeySchema }) } },
      },
    },
    handler: async (request) => {
      const auth = authOf(request);
      const keys = await services.apiKeys.list(authorityOf(auth), auth.userId);
      const spent = await services.apiKeys.spendThisMonth(keys.map((k) => k.id));
      return { code: 200, data: keys.map((k) => ({ ...presentApiKey(k), spendThisMonthMicroUsd: spent.get(k.id) ?? 0 })) };
    },
  });

  app.post('/api/v1/keys', {
    onRequest: auth,
    schema: { body: keyBody },
    config: {
      docs: {
        summary: 'Create an API key (with an API key: a management key, creating a key no wider than itself)',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'The new key, shown once', schema: envelope(createdKeySchema) }, 400: errorResponse('Invalid name'), 403: errorResponse(REFUSED) },
      },
    },
    handler: async (request) => {
      const body = (request.body ?? {}) as KeyBody;
      const auth = authOf(request);
      const created = await services.apiKeys.create(authorityOf(auth), auth.userId, { name: body.name, limits: limitsChangeOf(body.limits), manageKeys: body.manageKeys });
      return { code: 200, data: { ...presentApiKey(created.row), spendThisMonthMicroUsd: 0, key: created.key } };
    },
  });

  app.patch('/api/v1/keys/:keyId', {
    onRequest: auth,
    schema: { params: idParam('keyId', 'API key id'), body: keyBody },
    config: {
      docs: {
        summary: 'Rename an API key or change its limits (absent: unchanged, null: removed); a key never changes itself',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Changed', schema: envelope(apiKeySchema) }, 400: errorResponse('Invalid name or limits'), 403: errorResponse(REFUSED), 404: errorResponse('No such key') },
      },
    },
    handler: async (request) => {
      const { keyId } = request.params as { keyId: string };
      const auth = authOf(request);
      const { userId } = auth;
      const body = (request.body ?? {}) as KeyBody;
      await services.apiKeys.update(authorityOf(auth), userId, keyId, { name: body.name, limits: limitsChangeOf(body.limits), manageKeys: body.manageKeys });
      const key = (await services.apiKeys.list(OWNER_AUTHORITY, userId)).find((k) => k.id === keyId);
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
        summary: 'Revoke an API key (takes effect at once, in every process); a management key may revoke itself',
        tags: ['Account'],
        auth: 'apiKey',
        responses: { 200: { description: 'Revoked', schema: envelope(apiKeySchema) }, 403: errorResponse(REFUSED), 404: errorResponse('No such key') },
      },
    },
    handler: async (request) => {
      const { keyId } = request.params as { keyId: string };
      const auth = authOf(request);
      const revoked = await services.apiKeys.revoke(authorityOf(auth), keyId, auth.userId);
      return { code: 200, data: presentApiKey(revoked) };
    },
  });
}
