import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import { errorResponse } from '../../schemas.ts';
import { noStore, presentSession, sessionDataSchema } from './session.route.ts';
import { assertSameOrigin, clientOf, setSessionCookie } from './session-cookie.ts';

/** The dashboard page that asks before a link signs the browser in (web/src/pages/SignInLinkPage.tsx). */
export const SIGN_IN_LINK_PAGE = '/login/link';

/**
 * Opening a one-time sign-in link (emailed, printed by the CLI, the demo user's at first start).
 *
 * The GET signs nobody in: a link is a URL anyone can put in a page or a mail, so a GET that opened a
 * session would let an attacker sign a victim's browser into the attacker's account (login CSRF),
 * where the victim's later work and payment details would land. It sends the browser to the
 * dashboard's confirmation page with the token in the fragment (never sent to a server, so it is in
 * no log and no Referer), and the page's button POSTs it: a same-origin JSON request, which another
 * site cannot make with the browser's cookies and our Origin.
 */
export function registerOpenSignInLinkRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/auth/link', {
    schema: { querystring: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } },
    config: {
      docs: {
        summary: 'Open a one-time sign-in link: goes to the dashboard page that asks before it signs in (nothing is signed in by this GET)',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 302: { description: `To ${SIGN_IN_LINK_PAGE}, with the token in the fragment` } },
      },
    },
    handler: async (request, reply) => {
      noStore(reply);
      reply.header('referrer-policy', 'no-referrer');
      const token = (request.query as { token: string }).token;
      return reply.redirect(`${SIGN_IN_LINK_PAGE}#token=${encodeURIComponent(token)}`, 302);
    },
  });

  app.post('/api/v1/auth/link', {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } },
    config: {
      docs: {
        summary: 'Sign in with a one-time sign-in link (sets the session cookie); the dashboard sends it when you confirm',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          200: { description: 'Signed in', schema: sessionDataSchema },
          401: errorResponse('The link was used already or has expired'),
          403: errorResponse('Sent from another site (Origin does not match this host)'),
        },
      },
    },
    handler: async (request, reply) => {
      assertSameOrigin(request);
      const issued = await services.auth.redeemSignInLink((request.body as { token: string }).token, clientOf(request));
      setSessionCookie(request, reply, issued.token, issued.session.absoluteExpiresAt);
      noStore(reply);
      return presentSession(issued.user, issued.session);
    },
  });
}
