import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { ApiKeyAuthenticator } from '../services/api-key-authenticator.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) return BEARER.exec(header)?.[1];
  // The Anthropic SDK sends its key as x-api-key.
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}

/** preHandler for endpoints SPEC.md protects: a valid, unrevoked API key, or 401. */
export function requireApiKey(authenticator: ApiKeyAuthenticator) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const token = bearerToken(request);
    if (!token) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <API_KEY>');
    const identity = await authenticator.authenticate(token);
    if (!identity) throw new AppError('unauthorized', 'invalid or revoked API key');
    request.auth = { userId: identity.userId, keyId: identity.keyId, via: 'api_key' };
  };
}

/**
 * preHandler of the admin API: the bearer token must equal ADMIN_TOKEN (compared in constant time).
 * Without ADMIN_TOKEN the admin API does not exist (404).
 */
export function requireAdmin(adminToken: string | undefined) {
  const expected = adminToken ? Buffer.from(adminToken) : undefined;
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!expected) throw new AppError('not_found', 'the admin API is disabled (set ADMIN_TOKEN to enable it)');
    const token = bearerToken(request);
    const given = Buffer.from(token ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError('unauthorized', 'invalid admin token');
    }
  };
}

export function authOf(request: FastifyRequest): { userId: string; keyId: string | undefined } {
  if (!request.auth) throw new AppError('unauthorized', 'authentication required');
  return request.auth;
}
