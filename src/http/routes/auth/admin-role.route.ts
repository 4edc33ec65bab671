import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { AppError } from '../../../domain/errors.ts';
import { BackoffLimiter } from '../../../services/auth/backoff-limiter.ts';
import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import { authOf, requireAdmin, requireSession, sameSecret } from '../../auth.ts';
import { presentUser } from '../../presenters.ts';
import { envelope, errorResponse, idParam, userWithRoleSchema } from '../../schemas.ts';

/**
 * Grants or removes the admin role (the dashboard's admin pages and the admin API with a session).
 * The first admin is made by the operator: signed in to the dashboard, with the gateway's ADMIN_TOKEN
 * (POST /api/v1/auth/claim-admin), or from the command line (`npx switchboard users promote <email>`).
 */
export function registerAdminRoleRoute(app: FastifyInstance, services: AppServices): void {
  // Wrong tokens from one account slow it down (a token is long; guessing must not be cheap either).
  const failures = new BackoffLimiter({ free: 3, baseMs: 1000, maxMs: 15 * 60_000, forgetMs: 3_600_000 });

  app.post('/api/v1/auth/claim-admin', {
    bodyLimit: AUTH_BODY_LIMIT,
    onRequest: requireSession(),
    schema: { body: { type: 'object', additionalProperties: false, required: ['adminToken'], properties: { adminToken: { type: 'string', minLength: 1, maxLength: 1024 } } } },
    config: {
      docs: {
        summary: 'Become an administrator with the operator\'s ADMIN_TOKEN (signed in to the dashboard; needs the CSRF header)',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          200: { description: 'The user with `isAdmin: true`', schema: envelope(userWithRoleSchema) },
          403: errorResponse('The token is wrong'),
          404: errorResponse('ADMIN_TOKEN is not set on this gateway'),
          429: errorResponse('Too many wrong tokens from this account: wait (Retry-After)'),
        },
      },
    },
    handler: async (request) => {
      const expected = services.config.adminToken;
      if (!expected) throw new AppError('not_found', 'ADMIN_TOKEN is not set on this gateway: an operator promotes users with `switchboard users promote <email>`');
      const { userId } = authOf(request);
      const wait = failures.retryAfter(userId);
      if (wait > 0) throw new AppError('rate_limited', `too many wrong tokens; try again in ${wait} s`, { retryAfter: wait });
      if (!sameSecret((request.body as { adminToken: string }).adminToken, expected)) {
        failures.recordFailure(userId);
        throw new AppError('forbidden', 'that is not the ADMIN_TOKEN of this gateway');
      }
      failures.reset(userId);
      const user = await services.auth.setAdmin(userId, true);
      request.log.info({ userId }, 'a user became an administrator with ADMIN_TOKEN');
      return { code: 200, data: { ...presentUser(user), isAdmin: true } };
    },
  });

  app.put('/admin/v1/users/:userId/admin', {
    onRequest: requireAdmin(services),
    schema: {
      params: idParam('userId', 'User id'),
      body: { type: 'object', additionalProperties: false, required: ['isAdmin'], properties: { isAdmin: { type: 'boolean' } } },
    },
    config: {
      docs: {
        summary: "Set a user's admin role (admin sessions may use the admin API)",
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'The user with `isAdmin`', schema: userWithRoleSchema },
          404: errorResponse('No such user'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = request.params as { userId: string };
      const user = await services.auth.setAdmin(userId, (request.body as { isAdmin: boolean }).isAdmin);
      return { ...presentUser(user), isAdmin: user.is_admin === 1 };
    },
  });
}
