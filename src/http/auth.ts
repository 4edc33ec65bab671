import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.types.ts';
import { AppError } from '../domain/errors.ts';
import { type RateLimiter, retryAfterSeconds } from '../ports/rate-limiter.port.ts';
import type { ApiKeyAuthenticator } from '../services/accounts/api-key-authenticator.ts';
import { addressGroup } from '../services/auth/address-group.ts';
import type { SessionIdentity } from '../services/auth/auth.service.ts';
import type { AuthContext } from './request-context.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The dashboard's session cookie (HttpOnly, SameSite=Lax, Secure behind HTTPS). */
export const SESSION_COOKIE = 'sb_session';
/** Header that must carry the session's CSRF token on unsafe requests authenticated by the cookie. */
export const CSRF_HEADER = 'x-csrf-token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Resolves a session cookie; routes/index.ts puts the service on the instance as `sessionAuth`. */
export interface SessionResolver {
  resolve(token: string): Promise<SessionIdentity | undefined>;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessionAuth?: SessionResolver;
  }
  interface FastifyRequest {
    /** Set when the request was authenticated by a dashboard session cookie. */
    dashboardSession: SessionIdentity | null;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  return bearerTokenOf(request.headers);
}

/** The API key of a request: `Authorization: Bearer <key>`, or `x-api-key` (the Anthropic SDK's header). */
export function bearerTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (header) return BEARER.exec(header)?.[1];
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}

/**
 * The admin token of a request: `Authorization: Bearer` only. Log scrubbers and proxies that redact
 * credentials know Authorization; an admin token in `x-api-key` (the user API takes keys there for
 * the Anthropic SDK) would be kept in their logs.
 */
function adminBearerOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  return header ? BEARER.exec(header)?.[1] : undefined;
}

/**
 * onRequest hook (before the body is read) for endpoints SPEC.md protects: a valid, unrevoked API key, or 401. A request without a
 * key may instead carry a dashboard session cookie (with the CSRF header on unsafe methods), so the
 * dashboard calls the same API the SDKs do. The key path is checked first and is unchanged.
 */
export function requireApiKey(authenticator: ApiKeyAuthenticator) {
  const slow = async (request: FastifyRequest, token: string | undefined): Promise<void> => {
    if (token) {
      const identity = await authenticator.authenticate(token);
      if (!identity) throw new AppError('unauthorized', 'invalid or revoked API key');
      request.auth = { userId: identity.userId, keyId: identity.keyId, via: 'api_key' };
      return;
    }
    const session = await authenticateSession(request);
    if (!session) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <API_KEY>');
    request.auth = { userId: session.userId, keyId: undefined, via: 'session' };
  };
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const hit = cachedApiKeyAuth(authenticator, request.headers);
    if (hit) {
      request.auth = hit;
      done();
      return;
    }
    slow(request, bearerToken(request)).then(() => done(), done);
  };
}

/**
 * The caller of a request whose API key the authenticator has seen in the last 30 s, answered
 * synchronously (no promise, no store access); undefined for anything else, which takes the slow path.
 * The chat lane takes only the requests this answers.
 */
export function cachedApiKeyAuth(authenticator: ApiKeyAuthenticator, headers: IncomingHttpHeaders): AuthContext | undefined {
  const token = bearerTokenOf(headers);
  const hit = token ? authenticator.cached(token) : undefined;
  return hit ? { userId: hit.userId, keyId: hit.keyId, via: 'api_key' } : undefined;
}

/**
 * The account of a request to an endpoint that needs no credentials (the catalog, /cost), when it
 * carries a valid API key or dashboard session: those show that account's group prices. A key or
 * session that is not valid is ignored, not refused (an SDK sends its key everywhere; a public read
 * must not fail on a revoked one): the list prices are shown.
 */
export async function optionalAccountId(authenticator: ApiKeyAuthenticator, request: FastifyRequest): Promise<string | undefined> {
  const token = bearerToken(request);
  if (token) {
    const identity = authenticator.cached(token) ?? (await authenticator.authenticate(token).catch(() => undefined));
    return identity?.userId;
  }
  const resolver = request.server.sessionAuth;
  const cookie = resolver ? cookieValue(request.headers.cookie, SESSION_COOKIE) : undefined;
  if (!resolver || !cookie) return undefined;
  return (await resolver.resolve(cookie).catch(() => undefined))?.userId;
}

/** onRequest hook of the session's own endpoints (sign-out, password change): a dashboard session only. */
export function requireSession() {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const session = await authenticateSession(request);
    if (!session) throw new AppError('unauthorized', 'not signed in');
    request.auth = { userId: session.userId, keyId: undefined, via: 'session' };
  };
}

/**
 * onRequest hook of the admin API (before its body is read or validated): the bearer token must equal ADMIN_TOKEN (compared in constant time), or
 * the request carries the dashboard session of an admin user. Without ADMIN_TOKEN the admin API does
 * not exist (404) for bearer callers; admin sessions still reach it. Wrong tokens are counted per
 * client address (IPv6 by /64); past the limit every bearer attempt from there is a 429, the right
 * token included, until the window ends.
 */
export function requireAdmin(services: { config: Pick<Config, 'adminToken' | 'limits'>; rateLimiter: RateLimiter }) {
  const adminToken = services.config.adminToken;
  const expected = adminToken ? Buffer.from(adminToken) : undefined;
  const limit = services.config.limits.adminFailuresPerAddress;
  const disabled = () => new AppError('not_found', 'the admin API is disabled (set ADMIN_TOKEN to enable it)');
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const token = adminBearerOf(request.headers);
    if (token === undefined) {
      const session = await authenticateSession(request);
      if (session?.isAdmin) {
        request.auth = { userId: session.userId, keyId: undefined, via: 'session' };
        return;
      }
      if (!expected) throw disabled();
      if (session) throw new AppError('forbidden', 'this account is not an administrator');
    }
    if (!expected) throw disabled();
    if (token === undefined && request.headers['x-api-key'] !== undefined) {
      throw new AppError('unauthorized', 'the admin token is accepted only as Authorization: Bearer <ADMIN_TOKEN>, not in x-api-key');
    }
    const failuresKey = `admin-fail:${addressGroup(request.ip)}`;
    const standing = await services.rateLimiter.peek(failuresKey, limit);
    if (!standing.allowed) {
      const retryAfter = retryAfterSeconds(standing);
      throw new AppError('rate_limited', `too many failed admin authentications from this address; try again in ${retryAfter} s`, { retryAfter });
    }
    const given = Buffer.from(token ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      await services.rateLimiter.hit(failuresKey, limit);
      throw new AppError('unauthorized', 'invalid admin token');
    }
  };
}

export function authOf(request: FastifyRequest): { userId: string; keyId: string | undefined } {
  if (!request.auth) throw new AppError('unauthorized', 'authentication required');
  return request.auth;
}

/**
 * The session named by the cookie, or undefined when there is no cookie. A cookie that names no live
 * session is a 401; an unsafe request without the session's CSRF token is a 403.
 */
async function authenticateSession(request: FastifyRequest): Promise<SessionIdentity | undefined> {
  const resolver = request.server.sessionAuth;
  const token = resolver ? cookieValue(request.headers.cookie, SESSION_COOKIE) : undefined;
  if (!resolver || !token) return undefined;
  const session = await resolver.resolve(token);
  if (!session) throw new AppError('unauthorized', 'your session has ended: sign in again');
  if (UNSAFE_METHODS.has(request.method)) {
    const given = request.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !sameSecret(given, session.csrfToken)) {
      throw new AppError('forbidden', `missing or wrong ${CSRF_HEADER} header (GET /api/v1/auth/session returns the token)`);
    }
  }
  request.dashboardSession = session;
  return session;
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
