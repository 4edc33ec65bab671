import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { authOf, requireSession } from '../auth.ts';
import { AUTH_BODY_LIMIT } from '../body-limits.ts';
import { envelope, errorResponse, idParam } from '../schemas.ts';

const SESSION = 'A signed-in dashboard session (the cookie and, on unsafe methods, its CSRF header): alerts are an owner’s choice, not a key’s';
const micro = (description: string) => ({ type: ['string', 'null'], pattern: '^[0-9]+$', description });

const firingSchema = {
  type: 'object',
  required: ['id', 'kind', 'period', 'memberId', 'thresholdPercent', 'thresholdMicroUsd', 'observedMicroUsd', 'notified', 'email', 'webhookDeliveryId', 'firedAt'],
  properties: {
    id: { type: 'string', description: 'Also the webhook-id of its webhook' },
    kind: { type: 'string', enum: ['spend', 'balance_below', 'member_cap'] },
    period: { type: 'string', description: 'The UTC month it fired in (YYYY-MM): each alert fires once per month' },
    memberId: { type: ['string', 'null'], description: 'member_cap: the member' },
    thresholdPercent: { type: ['integer', 'null'] },
    thresholdMicroUsd: { type: 'string', description: 'The amount crossed' },
    observedMicroUsd: { type: 'string', description: 'The spend or balance the check saw' },
    notified: { type: 'boolean', description: 'False: a higher threshold crossed at the same check was the one sent' },
    email: { type: 'string', enum: ['pending', 'sent', 'failed', 'none'] },
    webhookDeliveryId: { type: ['string', 'null'], description: 'Its delivery in GET /api/v1/webhooks/deliveries' },
    firedAt: { type: 'string', format: 'date-time' },
  },
};

export const budgetAlertsSchema = {
  type: 'object',
  required: ['monthlyBudgetMicroUsd', 'spendThresholdsPercent', 'balanceBelowMicroUsd', 'memberCapThresholdsPercent', 'webhookUrl', 'email', 'spendMonth', 'spentThisMonthMicroUsd', 'updatedAt', 'firings'],
  properties: {
    monthlyBudgetMicroUsd: micro('The monthly budget the spend percentages are of'),
    spendThresholdsPercent: { type: 'array', items: { type: 'integer' } },
    balanceBelowMicroUsd: micro('Alert when the balance falls below this'),
    memberCapThresholdsPercent: { type: 'array', items: { type: 'integer' }, description: 'Organizations: percentages of each capped member’s monthly cap' },
    webhookUrl: { type: ['string', 'null'], description: 'Signed like completion webhooks, with the account’s signing secret' },
    email: { type: 'boolean' },
    spendMonth: { type: ['string', 'null'] },
    spentThisMonthMicroUsd: { type: 'string', description: 'As the last check counted it' },
    updatedAt: { type: ['string', 'null'], format: 'date-time' },
    firings: { type: 'array', items: firingSchema, description: 'The latest crossings, newest first' },
    webhookSigningSecret: { type: 'string', description: 'Organizations (owners): the secret the organization’s webhooks are signed with' },
  },
};

const putBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    monthlyBudgetMicroUsd: { type: ['integer', 'null'] },
    spendThresholdsPercent: { type: ['array', 'null'], items: { type: 'integer' }, maxItems: 10 },
    balanceBelowMicroUsd: { type: ['integer', 'null'] },
    memberCapThresholdsPercent: { type: ['array', 'null'], items: { type: 'integer' }, maxItems: 10 },
    webhookUrl: { type: ['string', 'null'], maxLength: 2048 },
    email: { type: 'boolean' },
  },
};

/**
 * Budget alerts (issue 33, item 7): a person's for their own account, an organization's for it (its
 * owners set them, owners and admins read them). Checked by the workers every
 * SWITCHBOARD_BUDGET_ALERT_CHECK_MS; each crossing sends one email and one signed webhook per month.
 */
export function registerBudgetAlertRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();
  const { budgetAlerts, organizations } = services;
  const docs = (summary: string, responses: Record<string, { description: string; schema?: Record<string, unknown> }>) => ({
    docs: { summary, description: SESSION, tags: ['Budget alerts'], auth: 'none' as const, responses },
  });
  const orgParam = idParam('orgId', 'Organization id');
  const ok = { 200: { description: 'The settings and latest crossings', schema: envelope(budgetAlertsSchema) } };

  app.get('/api/v1/budget-alerts', {
    onRequest: session,
    config: docs('Your budget alerts and their latest crossings', ok),
    handler: async (request) => ({ code: 200, data: await budgetAlerts.view(authOf(request).userId) }),
  });

  app.put('/api/v1/budget-alerts', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: putBody },
    config: docs('Set your budget alerts: percentages of a monthly budget, a balance below an amount, a webhook URL, email on or off', { ...ok, 400: errorResponse('A bad threshold, amount or URL') }),
    handler: async (request) => {
      const me = authOf(request).userId;
      return { code: 200, data: await budgetAlerts.putOwn(me, request.body) };
    },
  });

  app.delete('/api/v1/budget-alerts', {
    onRequest: session,
    config: docs('Turn off your budget alerts', { 200: { description: 'Removed' }, 404: errorResponse('None were set') }),
    handler: async (request) => {
      await budgetAlerts.remove(authOf(request).userId);
      return { code: 200, data: { removed: true } };
    },
  });

  app.get('/api/v1/organizations/:orgId/budget-alerts', {
    onRequest: session,
    schema: { params: orgParam },
    config: docs('The organization’s budget alerts (an owner or admin); an owner also sees the webhook signing secret', { ...ok, 403: errorResponse('A member'), 404: errorResponse('Not an organization you belong to') }),
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const seat = await organizations.seat(authOf(request).userId, orgId, 'read_all');
      const view = await budgetAlerts.view(orgId);
      if (seat.role !== 'owner') return { code: 200, data: view };
      return { code: 200, data: { ...view, webhookSigningSecret: (await services.webhookSecrets.get(orgId)).secret } };
    },
  });

  app.put('/api/v1/organizations/:orgId/budget-alerts', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { params: orgParam, body: putBody },
    config: docs('Set the organization’s budget alerts (an owner): also percentages of each member’s monthly cap; emails go to the owners (and the member)', {
      ...ok,
      400: errorResponse('A bad threshold, amount or URL'),
      403: errorResponse('Not an owner'),
      404: errorResponse('Not an organization you belong to'),
    }),
    handler: async (request) => {
      const me = authOf(request).userId;
      const { orgId } = request.params as { orgId: string };
      const seat = await organizations.seat(me, orgId, 'billing');
      return { code: 200, data: await budgetAlerts.put(seat.organization, request.body, me) };
    },
  });

  app.delete('/api/v1/organizations/:orgId/budget-alerts', {
    onRequest: session,
    schema: { params: orgParam },
    config: docs('Turn off the organization’s budget alerts (an owner)', { 200: { description: 'Removed' }, 403: errorResponse('Not an owner'), 404: errorResponse('None were set, or not your organization') }),
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      await organizations.seat(authOf(request).userId, orgId, 'billing');
      await budgetAlerts.remove(orgId);
      return { code: 200, data: { removed: true } };
    },
  });
}
