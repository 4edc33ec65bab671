import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { UserRow } from '../../../adapters/db/repositories/users.repository.ts';
import { AppError } from '../../../domain/errors.ts';
import { getUser } from '../../../adapters/db/stores/account-store.ts';
import type { AppServices } from '../../app-services.ts';
import { PASSWORD_MAX, PASSWORD_MIN, type SessionIdentity } from '../../../services/auth/auth.service.ts';
import { authOf, CSRF_HEADER, requireSession } from '../../auth.ts';
import { presentUser } from '../../presenters.ts';
import { envelope, errorResponse, iso, userWithRoleSchema } from '../../schemas.ts';
import { assertSameOrigin, clearSessionCookie, clientOf, setSessionCookie } from './session-cookie.ts';

const credentialsBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', maxLength: 320 },
    password: { type: 'string', maxLength: 1024, description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
  },
};

export const sessionDataSchema = envelope({
  type: 'object',
  required: ['user', 'csrfToken', 'expiresAt'],
  properties: {
    user: {
      ...userWithRoleSchema,
      required: [...(userWithRoleSchema.required as string[]), 'hasPassword'],
      properties: {
        ...(userWithRoleSchema.properties as object),
        hasPassword: { type: 'boolean', description: 'False for an account that has only signed in by link: it sets a first password without a current one' },
      },
    },
    csrfToken: { type: 'string', description: `Send it as ${CSRF_HEADER} on POST, PUT, PATCH and DELETE requests made with the session cookie` },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the session ends if unused (it slides with use)' },
  },
});

export function presentSession(user: UserRow, session: SessionIdentity) {
  return {
    code: 200,
    data: { user: { ...presentUser(user), isAdmin: session.isAdmin, hasPassword: user.password_hash !== null }, csrfToken: session.csrfToken, expiresAt: iso(session.expiresAt) },
  };
}

export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}

/**
 * Accounts in the browser: sign-up, sign-in, the current session (with its CSRF token), sign-out and
 * password change. The session cookie then authenticates the same public API the SDKs use.
 */
export function registerSessionRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();

  app.post('/api/v1/auth/signup', {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: credentialsBody },
    config: {
      docs: {
        summary: 'Create an account with email and password and sign in (sets the session cookie)',
        description: 'A new account starts with balance 0; the operator credits it.',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          200: { description: 'Signed in; the session cookie is set', schema: sessionDataSchema },
          400: errorResponse('Invalid email or a password outside the length bounds'),
          409: errorResponse('The email is taken'),
          429: errorResponse('Too many sign-ups from this address'),
        },
      },
    },
    handler: async (request, reply) => {
      assertSameOrigin(request);
      const body = request.body as { email: string; password: string };
      const issued = await services.auth.signup(body.email, body.password, clientOf(request));
      setSessionCookie(request, reply, issued.token, issued.session.absoluteExpiresAt);
      noStore(reply);
      return presentSession(issued.user, issued.session);
    },
  });

  app.post('/api/v1/auth/login', {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: credentialsBody },
    config: {
      docs: {
        summary: 'Sign in with email and password (sets the session cookie)',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          200: { description: 'Signed in', schema: sessionDataSchema },
          401: errorResponse('Wrong email or password'),
          429: errorResponse('Too many failed sign-ins (per email and per address); see Retry-After'),
        },
      },
    },
    handler: async (request, reply) => {
      assertSameOrigin(request);
      const body = request.body as { email: string; password: string };
      const issued = await services.auth.login(body.email, body.password, clientOf(request));
      setSessionCookie(request, reply, issued.token, issued.session.absoluteExpiresAt);
      noStore(reply);
      return presentSession(issued.user, issued.session);
    },
  });

  app.get('/api/v1/auth/session', {
    onRequest: session,
    config: {
      docs: {
        summary: 'The signed-in user and the CSRF token of the session',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 200: { description: 'The session', schema: sessionDataSchema }, 401: errorResponse('Not signed in, or the session ended') },
      },
    },
    handler: async (request, reply) => {
      const current = request.dashboardSession;
      if (!current) throw new AppError('unauthorized', 'not signed in');
      noStore(reply);
      return presentSession(await getUser(services.database.db, current.userId), current);
    },
  });

  app.post('/api/v1/auth/logout', {
    bodyLimit: AUTH_BODY_LIMIT,
    onRequest: session,
    config: {
      docs: {
        summary: 'Sign out: ends the session and clears the cookie (needs the CSRF header)',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: { 200: { description: 'Signed out' }, 401: errorResponse('Not signed in'), 403: errorResponse('Missing CSRF header') },
      },
    },
    handler: async (request, reply) => {
      const current = request.dashboardSession;
      if (current) await services.auth.logout(current.sessionId);
      clearSessionCookie(request, reply);
      noStore(reply);
      return { code: 200, data: { signedOut: true } };
    },
  });

  app.post('/api/v1/auth/password', {
    bodyLimit: AUTH_BODY_LIMIT,
    onRequest: session,
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['newPassword'],
        properties: { currentPassword: { type: 'string', maxLength: 1024 }, newPassword: { type: 'string', maxLength: 1024 } },
      },
    },
    config: {
      docs: {
        summary: 'Change the password (requires the current one), or set a first one on an account that has none; signs out every other session',
        tags: ['Dashboard session'],
        auth: 'none',
        responses: {
          200: {
            description: '`{otherSessionsEnded}`',
            schema: envelope({ type: 'object', required: ['otherSessionsEnded'], properties: { otherSessionsEnded: { type: 'integer', description: 'Other sessions of this user signed out' } } }),
          },
          400: errorResponse('The new password is outside the length bounds, or a current password was sent for an account that has none'),
          403: errorResponse('The current password is wrong, or the CSRF header is missing'),
          409: errorResponse('No current password for an account that has one (a first password was set meanwhile by another session)'),
        },
      },
    },
    handler: async (request, reply) => {
      const body = request.body as { currentPassword?: string; newPassword: string };
      const result = await services.auth.changePassword(authOf(request).userId, request.dashboardSession?.sessionId, body.currentPassword, body.newPassword);
      noStore(reply);
      return { code: 200, data: result };
    },
  });
}
