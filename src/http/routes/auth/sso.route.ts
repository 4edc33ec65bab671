import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { cookieValue } from '../../auth.ts';
import { envelope } from '../../schemas.ts';
import { SsoRefusal, type SsoRefusalReason } from '../../../services/auth/sso/sso-refusal.ts';
import { SSO_STATE_TTL_MS } from '../../../services/auth/sso/sso-sign-in.service.ts';
import { noStore } from './session.route.ts';
import { clientOf, setSessionCookie } from './session-cookie.ts';

/** Binds a started sign-in to the browser that started it; only the callback path ever sees it. */
export const SSO_BROWSER_COOKIE = 'sb_sso';
const COOKIE_PATH = '/api/v1/auth/oidc';
/** Where a refused sign-in lands: the sign-in page, which words `sso_error` (SignInPage.tsx). */
const SIGN_IN_PAGE = '/login';
const NAME = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,31}$' };

export const ssoProvidersSchema = envelope({
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'label', 'startUrl'],
    properties: {
      name: { type: 'string' },
      label: { type: 'string', description: 'The button says "Continue with {label}"' },
      startUrl: { type: 'string', description: 'Open it in the browser (a top-level navigation) to sign in at the provider' },
    },
  },
});

/**
 * Single sign-on in the browser (docs/decisions.md, "Single sign-on"): the providers for the sign-in
 * page, the start (a redirect to the provider) and the provider's callback. Both GETs are top-level
 * navigations, so their failures are redirects to the sign-in page with a reason, not JSON.
 */
export function registerSsoRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/auth/oidc/providers', {
    config: {
      docs: {
        summary: 'The single sign-on providers the operator configured (the sign-in page shows a button for each)',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 200: { description: 'Providers, by name', schema: ssoProvidersSchema } },
      },
    },
    handler: async () => ({
      code: 200,
      data: services.sso.list().map((p) => ({ ...p, startUrl: `/api/v1/auth/oidc/${p.name}/start` })),
    }),
  });

  app.get('/api/v1/auth/oidc/:provider/start', {
    schema: { params: { type: 'object', required: ['provider'], properties: { provider: NAME } } },
    config: {
      docs: {
        summary: 'Start single sign-on: redirects to the provider with PKCE, state and nonce',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 302: { description: "To the provider's sign-in page; or to /login?sso_error=… when it cannot start" } },
      },
    },
    handler: async (request, reply) => {
      noStore(reply);
      const name = (request.params as { provider: string }).provider;
      try {
        const started = await services.sso.start(name, clientOf(request));
        reply.header('set-cookie', browserCookie(request, started.browserToken, Math.floor(SSO_STATE_TTL_MS / 1000)));
        return reply.redirect(started.location, 302);
      } catch (error) {
        return refuse(request, reply, name, error);
      }
    },
  });

  app.get('/api/v1/auth/oidc/:provider/callback', {
    schema: {
      params: { type: 'object', required: ['provider'], properties: { provider: NAME } },
      // Providers add their own parameters (iss, scope, session_state, authuser…).
      querystring: {
        type: 'object',
        properties: {
          code: { type: 'string', maxLength: 2048 },
          state: { type: 'string', maxLength: 200 },
          error: { type: 'string', maxLength: 200 },
          iss: { type: 'string', maxLength: 500 },
        },
      },
    },
    config: {
      docs: {
        summary: "The provider's redirect back: checks state, the code and the id token, then signs in (sets the session cookie)",
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 302: { description: 'To the dashboard, signed in; or to /login?sso_error=… (no session)' } },
      },
    },
    handler: async (request, reply) => {
      noStore(reply);
      reply.header('referrer-policy', 'no-referrer');
      const name = (request.params as { provider: string }).provider;
      const query = request.query as { code?: string; state?: string; error?: string; iss?: string };
      try {
        const issued = await services.sso.finish(name, query, cookieValue(request.headers.cookie, SSO_BROWSER_COOKIE), clientOf(request));
        // Done with; on a refusal it stays (a forged callback must not end the browser's real sign-in) and runs out with its state.
        reply.header('set-cookie', browserCookie(request, '', 0));
        setSessionCookie(request, reply, issued.token, issued.session.absoluteExpiresAt);
        request.log.info({ provider: name, userId: issued.user.id }, 'single sign-on');
        return reply.redirect('/', 302);
      } catch (error) {
        return refuse(request, reply, name, error);
      }
    },
  });
}

function browserCookie(request: FastifyRequest, value: string, maxAgeS: number): string {
  // SameSite=Lax: the provider's redirect back is a top-level GET, which carries it.
  return `${SSO_BROWSER_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`;
}

function refuse(request: FastifyRequest, reply: FastifyReply, provider: string, error: unknown): FastifyReply {
  let reason: SsoRefusalReason = 'failed';
  if (error instanceof SsoRefusal) {
    reason = error.reason;
    request.log.info({ provider, reason, detail: error.message }, 'single sign-on refused');
  } else {
    request.log.error({ provider, err: error }, 'single sign-on failed');
  }
  return reply.redirect(`${SIGN_IN_PAGE}?sso_error=${reason}`, 302);
}
