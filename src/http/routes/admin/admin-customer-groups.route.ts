/**
 * Customer groups and price multipliers (issue 33, item 4): groups with a multiplier for every model
 * and per model, and the group of an account (a user or an organization). Validated before anything
 * is written, audited with the other price settings, and priced by every API and worker process
 * within 5 s (services/pricing/customer-group-directory.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { errorResponse, idParam } from '../../schemas.ts';

const nameParam = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 63, description: 'Group name' } } };
const versionQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { expectedVersion: { type: 'string', pattern: '^[0-9]{1,15}$', description: 'Refuse with 409 unless the group is at this version' } },
};
const multiplier = { anyOf: [{ type: 'number' }, { type: 'string' }], description: 'Price multiplier, 0.01 to 10 with at most 6 decimals (1.25: 25% above the list price)' };
const groupBody = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Lower-case letters, digits, `_` and `-`; `default` is reserved (the list price)' },
    description: { type: ['string', 'null'] },
    multiplier,
    models: { type: 'object', additionalProperties: multiplier, description: 'Per-model multipliers that beat `multiplier`; a PATCH replaces the whole object' },
    expectedVersion: { type: 'integer', minimum: 0 },
  },
};
const groupAnswer = {
  type: 'object',
  required: ['name', 'description', 'multiplier', 'models', 'members', 'version', 'updatedAt', 'updatedBy'],
  properties: {
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    multiplier: { type: 'string', description: 'Decimal, 1 is the list price' },
    models: { type: 'object', additionalProperties: { type: 'string' } },
    members: { type: 'integer', description: 'Accounts in the group' },
    version: { type: 'integer' },
    updatedAt: { type: 'string', format: 'date-time' },
    updatedBy: { type: 'string' },
  },
};
const accountGroupAnswer = {
  type: 'object',
  required: ['accountId', 'group', 'multiplier'],
  properties: { accountId: { type: 'string' }, group: { type: 'string', description: '`default`: in no group, at the list price' }, multiplier: { type: 'string' } },
};
const refusals = {
  400: errorResponse('A bad name, multiplier (zero, negative, above 10), unknown model or unknown field; `param` names it'),
  409: errorResponse('`expectedVersion` is not the stored version, the group exists already, or it still has accounts'),
};

function actorOf(request: FastifyRequest): string {
  return request.auth?.userId ?? 'admin-token';
}

export function registerAdminCustomerGroupRoutes(app: FastifyInstance, services: AppServices): void {
  const admin = requireAdmin(services);
  const groups = services.customerGroups;
  const docs = (summary: string, responses: Record<string, { description: string; schema?: Record<string, unknown> }>) => ({ docs: { summary, tags: ['Admin customer groups'], auth: 'admin' as const, responses } });

  app.get('/admin/v1/groups', {
    onRequest: admin,
    config: docs('Every customer group with its multipliers and member count', { 200: { description: '`{groups}`', schema: { type: 'object', required: ['groups'], properties: { groups: { type: 'array', items: groupAnswer } } } } }),
    handler: async () => ({ groups: groups.list() }),
  });

  app.post('/admin/v1/groups', {
    onRequest: admin,
    schema: { body: { ...groupBody, required: ['name', 'multiplier'] } },
    config: docs('Create a customer group', { 200: { description: 'The group', schema: groupAnswer }, ...refusals }),
    handler: async (request) => groups.create(request.body, actorOf(request)),
  });

  app.get('/admin/v1/groups/:name', {
    onRequest: admin,
    schema: { params: nameParam },
    config: docs('One customer group', { 200: { description: 'The group', schema: groupAnswer }, 404: errorResponse('No such group') }),
    handler: async (request) => groups.get((request.params as { name: string }).name),
  });

  app.patch('/admin/v1/groups/:name', {
    onRequest: admin,
    schema: { params: nameParam, body: groupBody },
    config: docs('Change a group\'s multiplier, per-model multipliers or description (priced by every process within 5 s; requests already held or queued keep their price)', { 200: { description: 'The group', schema: groupAnswer }, 404: errorResponse('No such group'), ...refusals }),
    handler: async (request) => groups.patch((request.params as { name: string }).name, request.body, actorOf(request)),
  });

  app.delete('/admin/v1/groups/:name', {
    onRequest: admin,
    schema: { params: nameParam, querystring: versionQuery },
    config: docs('Delete a group that has no accounts', { 200: { description: 'Deleted', schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } }, 404: errorResponse('No such group'), ...refusals }),
    handler: async (request) => {
      const v = (request.query as { expectedVersion?: string }).expectedVersion;
      await groups.delete((request.params as { name: string }).name, v === undefined ? undefined : Number(v), actorOf(request));
      return { deleted: true };
    },
  });

  app.get('/admin/v1/users/:id/group', {
    onRequest: admin,
    schema: { params: idParam('id', 'User (or organization) id') },
    config: docs('The customer group of an account', { 200: { description: 'Its group and multiplier', schema: accountGroupAnswer } }),
    handler: async (request) => groups.accountGroup((request.params as { id: string }).id),
  });

  app.put('/admin/v1/users/:id/group', {
    onRequest: admin,
    schema: { params: idParam('id', 'User (or organization) id'), body: { type: 'object', required: ['group'], properties: { group: { type: ['string', 'null'], description: 'A group name; `default` or null: the list price' } } } },
    config: docs('Put an account in a customer group', { 200: { description: 'Its group now', schema: accountGroupAnswer }, 404: errorResponse('No such account'), ...refusals }),
    handler: async (request) => groups.setAccountGroup((request.params as { id: string }).id, request.body, actorOf(request)),
  });
}
