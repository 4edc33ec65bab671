import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { findAttempt } from '../../adapters/db/repositories/tasks.repository.ts';
import { AppError } from '../../domain/errors.ts';
import type { AppServices } from '../app-services.ts';

/**
 * Upstream completion callbacks, one URL per attempt carrying an unguessable token. The route
 * authenticates the callback (the token, then the vendor's own check in `parseCallback`) and hands
 * the notice to the task runner, which owns every change of the attempt (TaskRunner.acceptCallback).
 */
export function registerMediaCallbackRoute(app: FastifyInstance, services: AppServices): void {
  void app.register(async (scope) => {
    // Vendors sign the raw bytes, so this route keeps the body as a Buffer.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4 * 1024 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/api/v1/callbacks/media/:attemptId/:token', async (request) => {
      const { attemptId, token } = request.params as { attemptId: string; token: string };
      const attempt = await findAttempt(services.database.db, attemptId);
      if (!attempt || !sameToken(attempt.callback_token, token)) throw new AppError('not_found', 'unknown callback');
      const provider = services.mediaProviders.get(attempt.provider, attempt.key_id);
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
      const notice = provider?.parseCallback ? provider.parseCallback({ headers, rawBody }) : { upstreamId: undefined };
      if (!notice) throw new AppError('invalid_input', 'the callback could not be verified');
      const woken = (await services.taskRunner.acceptCallback(attempt, notice)) === 'woken';
      return woken ? { ok: true } : { ok: true, ignored: true };
    });
  });
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
