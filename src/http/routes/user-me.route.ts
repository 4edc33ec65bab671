import type { FastifyInstance } from 'fastify';
import { findUserSummary, type UserSummaryRow } from '../../adapters/db/repositories/users.repository.ts';
import { AppError } from '../../domain/errors.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { presentUser } from '../presenters.ts';
import { envelope, errorResponse, userDataSchema } from '../schemas.ts';

export function registerUserMeRoute(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/user/me', {
    onRequest: requireApiKey(services.authenticator),
    // A response schema lets Fastify serialize with a compiled function (the route is benchmarked).
    schema: { response: { 200: envelope(userDataSchema) } },
    config: {
      docs: {
        summary: 'The calling user and balance',
        tags: ['Account'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The user; balance in integer USD cents (rounded down)', schema: envelope(userDataSchema) },
          401: errorResponse('Missing or invalid API key'),
          404: errorResponse('User not found'),
        },
      },
    },
    handler: (request, reply) => {
      const answer = (user: UserSummaryRow | undefined) => {
        if (!user) throw new AppError('user_not_found', 'user not found');
        return { code: 200, data: presentUser(user) };
      };
      const found = findUserSummary(services.database.db, authOf(request).userId);
      // SQLite answers synchronously (the fast reader); PostgreSQL through a promise.
      if (found instanceof Promise) return found.then(answer);
      return reply.send(answer(found));
    },
  });
}
