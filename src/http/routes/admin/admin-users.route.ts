import type { FastifyInstance } from 'fastify';
import { listUsers } from '../../../adapters/db/repositories/users.repository.ts';
import { OWNER_AUTHORITY } from '../../../domain/api-key-authority.ts';
import { centsToMicro } from '../../../domain/money.ts';
import { createUser, getUser } from '../../../adapters/db/stores/account-store.ts';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { presentApiKey, presentUser } from '../../presenters.ts';
import { apiKeySchema, errorResponse, idParam, userDataSchema, userWithRoleSchema } from '../../schemas.ts';

export function registerAdminUserRoutes(app: FastifyInstance, services: AppServices): void {
  const admin = requireAdmin(services);

  app.post('/admin/v1/users', {
    onRequest: admin,
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          email: { type: 'string', maxLength: 320 },
          balanceCents: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
        },
      },
    },
    config: {
      docs: {
        summary: 'Create a user',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'The user; balance in cents', schema: userDataSchema },
          400: errorResponse('Invalid email or balance'),
          409: errorResponse('Email already used'),
        },
      },
    },
    handler: async (request) => {
      const body = (request.body ?? {}) as { email?: string; balanceCents?: number };
      const user = await createUser(services.database.db, { email: body.email ?? null, balanceMicro: centsToMicro(body.balanceCents ?? 0) });
      return presentUser(user);
    },
  });

  app.get('/admin/v1/users', {
    onRequest: admin,
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { after: { type: 'string', maxLength: 100 }, limit: { type: 'string', pattern: '^[0-9]{1,4}$' } },
      },
    },
    config: {
      docs: {
        summary: 'List users (cursor: the last id of the previous page)',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: {
            description: 'Users by id',
            schema: { type: 'object', required: ['data', 'nextCursor'], properties: { data: { type: 'array', items: userWithRoleSchema }, nextCursor: { type: ['string', 'null'] } } },
          },
        },
      },
    },
    handler: async (request) => {
      const query = request.query as { after?: string; limit?: string };
      const limit = Math.min(Math.max(Number(query.limit ?? 100), 1), 1000);
      const users = await listUsers(services.database.db, limit, query.after);
      // The admin list also says who administers the gateway (the dashboard shows it as the role).
      return { data: users.map((u) => ({ ...presentUser(u), isAdmin: u.is_admin === 1 })), nextCursor: users.length === limit ? (users.at(-1)?.id ?? null) : null };
    },
  });

  app.get('/admin/v1/users/:userId', {
    onRequest: admin,
    schema: { params: idParam('userId', 'User id') },
    config: {
      docs: { summary: 'One user', tags: ['Admin'], auth: 'admin', responses: { 200: { description: 'The user', schema: userDataSchema }, 404: errorResponse('No such user') } },
    },
    handler: async (request) => presentUser(await getUser(services.database.db, (request.params as { userId: string }).userId)),
  });

  app.post('/admin/v1/users/:userId/api-keys', {
    onRequest: admin,
    schema: {
      params: idParam('userId', 'User id'),
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string', maxLength: 100 }, manageKeys: { type: 'boolean', description: 'A management key: it may manage the user\'s keys through /api/v1/keys, within its own limits' } },
      },
    },
    config: {
      docs: {
        summary: 'Create an API key for a user (the key is shown only in this response)',
        tags: ['Admin'],
        auth: 'admin',
        responses: { 200: { description: '`{id, key}` and the key metadata' }, 404: errorResponse('No such user') },
      },
    },
    handler: async (request) => {
      const { userId } = request.params as { userId: string };
      const body = (request.body ?? {}) as { name?: string; manageKeys?: boolean };
      const created = await services.apiKeys.create(OWNER_AUTHORITY, userId, { name: body.name, manageKeys: body.manageKeys });
      return { ...presentApiKey(created.row), key: created.key };
    },
  });

  app.get('/admin/v1/users/:userId/api-keys', {
    onRequest: admin,
    schema: { params: idParam('userId', 'User id') },
    config: {
      docs: { summary: "A user's API keys", tags: ['Admin'], auth: 'admin', responses: { 200: { description: 'Keys', schema: { type: 'array', items: apiKeySchema } } } },
    },
    handler: async (request) => (await services.apiKeys.list(OWNER_AUTHORITY, (request.params as { userId: string }).userId)).map(presentApiKey),
  });

  app.delete('/admin/v1/api-keys/:keyId', {
    onRequest: admin,
    schema: { params: idParam('keyId', 'API key id') },
    config: {
      docs: { summary: 'Revoke any API key', tags: ['Admin'], auth: 'admin', responses: { 200: { description: 'Revoked', schema: apiKeySchema }, 404: errorResponse('No such key') } },
    },
    handler: async (request) => presentApiKey(await services.apiKeys.revoke(OWNER_AUTHORITY, (request.params as { keyId: string }).keyId)),
  });
}
