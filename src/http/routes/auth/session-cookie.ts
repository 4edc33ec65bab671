import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { ClientInfo } from '../../../services/auth/auth.service.ts';
import { SESSION_COOKIE } from '../../auth.ts';

/**
 * The cookie lives as long as the session can (its absolute expiry); the server ends it earlier when it
 * sits idle. HttpOnly (scripts never see it), SameSite=Lax (not sent on cross-site subrequests or
 * posts), Secure when the request came over HTTPS (directly or through a proxy: trustProxy is on).
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: number, now: number = Date.now()): void {
  const maxAge = Math.max(0, Math.floor((expiresAt - now) / 1000));
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`);
}

export function clientOf(request: FastifyRequest): ClientInfo {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : undefined };
}

/**
 * Sign-in and sign-up carry no session yet, so no CSRF token: a browser's cross-site request is refused
 * by its Origin (and a form cannot post JSON without a preflight, which we never allow).
 */
export function assertSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '') return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== request.host) throw new AppError('forbidden', 'cross-site sign-in refused (Origin does not match this host)');
}
