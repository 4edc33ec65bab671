import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { authOf, requireSession } from '../../auth.ts';
import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { noStore } from '../auth/session.route.ts';
import { invitationSchema, memberSchema, organizationSchema, presentInvitation, presentMember, presentOrganization, roleSchema } from './organization-schemas.ts';

/** The dashboard page that asks before an invitation's link makes the signed-in person a member. */
export const INVITATION_PAGE = '/organizations/join';

const SESSION = 'A signed-in dashboard session (the cookie and, on unsafe methods, its CSRF header): organizations are managed by people, not keys';
const orgParam = idParam('orgId', 'Organization id');
const memberParams = { type: 'object', required: ['orgId', 'userId'], properties: { orgId: { type: 'string', maxLength: 200 }, userId: { type: 'string', maxLength: 200 } } };
const invitationParams = { type: 'object', required: ['orgId', 'invitationId'], properties: { orgId: { type: 'string', maxLength: 200 }, invitationId: { type: 'string', maxLength: 200 } } };

/**
 * Organizations, their members and invitations (issue 33, items 1-2). Every endpoint is a person's,
 * through the dashboard session; the role checks are the service's (organizations.service.ts).
 */
export function registerOrganizationRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();
  const organizations = services.organizations;
  const presentMembers = async (me: string, orgId: string) => {
    const [members, spent] = await Promise.all([organizations.members(me, orgId), organizations.spendThisMonth(me, orgId)]);
    return members.map((m) => presentMember(m, spent));
  };
  const docs = (summary: string, responses: Record<string, { description: string; schema?: Record<string, unknown> }>) => ({
    docs: { summary, description: SESSION, tags: ['Organizations'], auth: 'none' as const, responses },
  });

  app.post('/api/v1/organizations', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', maxLength: 100 } } } },
    config: docs('Create an organization: an account with its own balance and keys; you are its owner', { 200: { description: 'The organization', schema: envelope(organizationSchema) }, 400: errorResponse('A missing or too long name') }),
    handler: async (request) => {
      const seat = await organizations.create(authOf(request).userId, (request.body as { name: string }).name);
      return { code: 200, data: presentOrganization(seat.organization, seat.role) };
    },
  });

  app.get('/api/v1/organizations', {
    onRequest: session,
    config: docs('The organizations you belong to, with your role in each', { 200: { description: 'Oldest membership first', schema: envelope({ type: 'array', items: organizationSchema }) } }),
    handler: async (request) => {
      const memberships = await organizations.listMine(authOf(request).userId);
      return { code: 200, data: memberships.map((m) => presentOrganization(m.organization, m.role)) };
    },
  });

  app.get('/api/v1/organizations/:orgId', {
    onRequest: session,
    schema: { params: orgParam },
    config: docs('One of your organizations', { 200: { description: 'The organization', schema: envelope(organizationSchema) }, 404: errorResponse('Not an organization you belong to') }),
    handler: async (request) => {
      const seat = await organizations.seat(authOf(request).userId, (request.params as { orgId: string }).orgId);
      return { code: 200, data: presentOrganization(seat.organization, seat.role) };
    },
  });

  app.patch('/api/v1/organizations/:orgId', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: {
      params: orgParam,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['tokensPerMinute'],
        properties: { tokensPerMinute: { type: ['integer', 'null'], minimum: 1, description: 'Tokens per minute over all its keys; null removes the limit' } },
      },
    },
    config: docs("Change the organization's limits (an owner or admin): tokens per minute over all its keys, at once in every process", {
      200: { description: 'The organization', schema: envelope(organizationSchema) },
      400: errorResponse('Not a whole number above 0'),
      403: errorResponse('A member'),
    }),
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const me = authOf(request).userId;
      await organizations.setTokensPerMinute(me, orgId, (request.body as { tokensPerMinute: number | null }).tokensPerMinute);
      const seat = await organizations.seat(me, orgId);
      return { code: 200, data: presentOrganization(seat.organization, seat.role) };
    },
  });

  app.get('/api/v1/organizations/:orgId/members', {
    onRequest: session,
    schema: { params: orgParam },
    config: docs('The members and their roles', { 200: { description: 'Members, earliest first', schema: envelope({ type: 'array', items: memberSchema }) }, 404: errorResponse('Not an organization you belong to') }),
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      return { code: 200, data: await presentMembers(authOf(request).userId, orgId) };
    },
  });

  app.patch('/api/v1/organizations/:orgId/members/:userId', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: {
      params: memberParams,
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          role: roleSchema,
          monthlyCapMicroUsd: { type: ['integer', 'null'], minimum: 0, description: "What the member may spend of the organization's balance per calendar month (UTC), micro-USD; null removes the cap. An owner or admin sets it" },
        },
      },
    },
    config: docs("Change a member's role (an owner; the last owner stays an owner) or monthly spend cap (an owner or admin)", {
      200: { description: 'The members after the change', schema: envelope({ type: 'array', items: memberSchema }) },
      403: errorResponse('Not an owner'),
      404: errorResponse('No such member'),
      409: errorResponse('The last owner'),
    }),
    handler: async (request) => {
      const { orgId, userId } = request.params as { orgId: string; userId: string };
      const me = authOf(request).userId;
      const body = request.body as { role?: string; monthlyCapMicroUsd?: number | null };
      if (body.monthlyCapMicroUsd !== undefined) await organizations.setMonthlyCap(me, orgId, userId, body.monthlyCapMicroUsd);
      if (body.role !== undefined) await organizations.changeRole(me, orgId, userId, body.role);
      return { code: 200, data: await presentMembers(me, orgId) };
    },
  });

  app.delete('/api/v1/organizations/:orgId/members/:userId', {
    onRequest: session,
    schema: { params: memberParams },
    config: docs("Remove a member (an owner), or leave (yourself). The member's keys of the organization stop at once, in every process; the last owner cannot leave", {
      200: { description: 'Removed', schema: envelope({ type: 'object', required: ['removed'], properties: { removed: { type: 'string' } } }) },
      403: errorResponse('Not an owner'),
      404: errorResponse('No such member'),
      409: errorResponse('The last owner'),
    }),
    handler: async (request) => {
      const { orgId, userId } = request.params as { orgId: string; userId: string };
      await organizations.removeMember(authOf(request).userId, orgId, userId);
      return { code: 200, data: { removed: userId } };
    },
  });

  app.post('/api/v1/organizations/:orgId/invitations', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { params: orgParam, body: { type: 'object', additionalProperties: false, required: ['email'], properties: { email: { type: 'string', maxLength: 320 }, role: roleSchema } } },
    config: docs('Invite someone by email (an owner): a link that works once, for 7 days, for the person signed in with that address', {
      200: {
        description: 'The invitation; `url` is the link the mail carries, for passing on by hand',
        schema: envelope({ ...invitationSchema, required: [...(invitationSchema.required as string[]), 'url'], properties: { ...(invitationSchema.properties as object), url: { type: 'string' } } }),
      },
      400: errorResponse('A bad address or role'),
      403: errorResponse('Not an owner'),
      409: errorResponse('A member already'),
    }),
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const body = request.body as { email: string; role?: string };
      const sent = await organizations.invite(authOf(request).userId, orgId, { email: body.email, role: body.role });
      return { code: 200, data: { ...presentInvitation(sent.invitation), url: organizations.invitationUrl(sent.token) } };
    },
  });

  app.get('/api/v1/organizations/:orgId/invitations', {
    onRequest: session,
    schema: { params: orgParam },
    config: docs('Pending invitations (an owner)', { 200: { description: 'Newest first', schema: envelope({ type: 'array', items: invitationSchema }) }, 403: errorResponse('Not an owner') }),
    handler: async (request) => {
      const pending = await organizations.pendingInvitations(authOf(request).userId, (request.params as { orgId: string }).orgId);
      return { code: 200, data: pending.map(presentInvitation) };
    },
  });

  app.delete('/api/v1/organizations/:orgId/invitations/:invitationId', {
    onRequest: session,
    schema: { params: invitationParams },
    config: docs('Withdraw a pending invitation (an owner): its link stops working', {
      200: { description: 'Withdrawn', schema: envelope({ type: 'object', required: ['revoked'], properties: { revoked: { type: 'string' } } }) },
      404: errorResponse('No pending invitation with this id'),
    }),
    handler: async (request) => {
      const { orgId, invitationId } = request.params as { orgId: string; invitationId: string };
      await organizations.revokeInvitation(authOf(request).userId, orgId, invitationId);
      return { code: 200, data: { revoked: invitationId } };
    },
  });

  app.get('/api/v1/organizations/invitations/open', {
    schema: { querystring: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } },
    config: {
      docs: {
        summary: "Open an invitation's link: goes to the dashboard page that asks before it accepts (nothing changes by this GET)",
        tags: ['Organizations'],
        auth: 'none',
        responses: { 302: { description: `To ${INVITATION_PAGE}, with the token in the fragment` } },
      },
    },
    handler: async (request, reply) => {
      noStore(reply);
      reply.header('referrer-policy', 'no-referrer');
      return reply.redirect(`${INVITATION_PAGE}#token=${encodeURIComponent((request.query as { token: string }).token)}`, 302);
    },
  });

  app.post('/api/v1/organizations/invitations/accept', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } },
    config: docs("Accept an invitation (signed in with the invited address): you join with the invitation's role", {
      200: { description: 'The organization joined', schema: envelope(organizationSchema) },
      403: errorResponse('Signed in with another address'),
      404: errorResponse('Used, withdrawn or expired'),
    }),
    handler: async (request) => {
      const seat = await organizations.accept(authOf(request).userId, (request.body as { token: string }).token);
      return { code: 200, data: presentOrganization(seat.organization, seat.role) };
    },
  });
}
