import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { type ApiKeyLimitsBody, apiKeyLimitsSchema, limitsChangeOf } from '../../api-key-limits.schema.ts';
import { authOf, requireSession } from '../../auth.ts';
import { presentApiKey } from '../../presenters.ts';
import { apiKeySchema, envelope, errorResponse, idParam } from '../../schemas.ts';

const orgKeySchema = {
  ...apiKeySchema,
  required: [...(apiKeySchema.required as string[]), 'memberId'],
  properties: { ...(apiKeySchema.properties as object), memberId: { type: ['string', 'null'], description: 'The member the key belongs to: every entry it moves names them' } },
};
const keyParams = { type: 'object', required: ['orgId', 'keyId'], properties: { orgId: { type: 'string', maxLength: 200 }, keyId: { type: 'string', maxLength: 200 } } };

/**
 * An organization's API keys (issue 33, item 1): a member makes keys of their own, which spend the
 * organization's balance and name them; an owner or admin sees and revokes everyone's. They are never
 * management keys (those would manage every member's keys through /api/v1/keys).
 */
export function registerOrganizationKeyRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();
  const organizations = services.organizations;
  const present = async (keys: Parameters<typeof presentApiKey>[0][]) => {
    const spent = await services.apiKeys.spendThisMonth(keys.map((k) => k.id));
    return keys.map((k) => ({ ...presentApiKey(k), memberId: k.member_id ?? null, spendThisMonthMicroUsd: spent.get(k.id) ?? 0 }));
  };

  app.get('/api/v1/organizations/:orgId/keys', {
    onRequest: session,
    schema: { params: idParam('orgId', 'Organization id') },
    config: {
      docs: {
        summary: "The organization's keys: everyone's for an owner or admin, your own for a member",
        tags: ['Organizations'],
        auth: 'none',
        responses: { 200: { description: 'Newest first', schema: envelope({ type: 'array', items: orgKeySchema }) }, 404: errorResponse('Not an organization you belong to') },
      },
    },
    handler: async (request) => {
      const keys = await organizations.listKeys(authOf(request).userId, (request.params as { orgId: string }).orgId);
      return { code: 200, data: await present(keys) };
    },
  });

  app.post('/api/v1/organizations/:orgId/keys', {
    onRequest: session,
    schema: {
      params: idParam('orgId', 'Organization id'),
      body: { type: 'object', additionalProperties: false, properties: { name: { type: 'string', maxLength: 100 }, limits: apiKeyLimitsSchema } },
    },
    config: {
      docs: {
        summary: 'Make a key of the organization for yourself (any member): it spends the organization’s balance and names you',
        tags: ['Organizations'],
        auth: 'none',
        responses: {
          200: { description: 'The key, shown once', schema: envelope({ ...orgKeySchema, required: [...(orgKeySchema.required as string[]), 'key'], properties: { ...orgKeySchema.properties, key: { type: 'string' } } }) },
          400: errorResponse('Bad name or limits'),
          404: errorResponse('Not an organization you belong to'),
        },
      },
    },
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const body = (request.body ?? {}) as { name?: string; limits?: ApiKeyLimitsBody };
      const created = await organizations.createKey(authOf(request).userId, orgId, { name: body.name, limits: limitsChangeOf(body.limits) });
      const [presented] = await present([created.row]);
      return { code: 200, data: { ...presented, key: created.key } };
    },
  });

  app.delete('/api/v1/organizations/:orgId/keys/:keyId', {
    onRequest: session,
    schema: { params: keyParams },
    config: {
      docs: {
        summary: "Revoke a key of the organization (your own; anyone's for an owner or admin): it stops at once, in every process",
        tags: ['Organizations'],
        auth: 'none',
        responses: { 200: { description: 'Revoked', schema: envelope(orgKeySchema) }, 404: errorResponse('No such key you may revoke') },
      },
    },
    handler: async (request) => {
      const { orgId, keyId } = request.params as { orgId: string; keyId: string };
      const revoked = await organizations.revokeKey(authOf(request).userId, orgId, keyId);
      const [presented] = await present([revoked]);
      return { code: 200, data: presented };
    },
  });
}
