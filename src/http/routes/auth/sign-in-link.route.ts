import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import { errorResponse } from '../../schemas.ts';
import { assertSameOrigin, clientOf } from './session-cookie.ts';

/** "Email me a sign-in link" from the sign-in page (see EmailedSignInLinks). */
export function registerSignInLinkRoute(app: FastifyInstance, services: AppServices): void {
  app.post('/api/v1/auth/sign-in-link', {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: {
      body: { type: 'object', additionalProperties: false, required: ['email'], properties: { email: { type: 'string', maxLength: 320 } } },
    },
    config: {
      docs: {
        summary: 'Email a one-time sign-in link (valid 15 minutes) to the account with this address, if there is one',
        description:
          'The answer is the same whether the address has an account or not. Without SMTP_URL the gateway writes the message to its log instead of sending it.',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          202: { description: '`{accepted: true}`: a link is on its way if the address has an account' },
          400: errorResponse('Not an email address'),
          429: errorResponse('Too many links asked for from this address or for this mailbox; see Retry-After'),
        },
      },
    },
    handler: async (request, reply) => {
      assertSameOrigin(request);
      await services.signInLinks.request((request.body as { email: string }).email, clientOf(request));
      reply.header('cache-control', 'no-store');
      return reply.code(202).send({ code: 202, data: { accepted: true } });
    },
  });
}
