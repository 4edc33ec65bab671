import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { findAttempt, findTask, recordLateOutcome, updateAttempt } from '../../adapters/db/repositories/tasks.repository.ts';
import { AppError } from '../../domain/errors.ts';
import { isOpenAttempt, isTerminal } from '../../domain/tasks/task-status.ts';
import type { AppServices } from '../../services/app-services.ts';
import { newJob } from '../../workers/job-catalog.ts';

/**
 * Upstream completion callbacks, one URL per attempt carrying an unguessable token. A callback is a
 * hint: for an open attempt it records the upstream id if we lacked it and wakes the task so the runner
 * polls the truth; for an attempt we already left it records the late outcome, which is then ignored.
 */
export function registerMediaCallbackRoute(app: FastifyInstance, services: AppServices): void {
  void app.register(async (scope) => {
    // Vendors sign the raw bytes, so this route keeps the body as a Buffer.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4 * 1024 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/api/v1/callbacks/media/:attemptId/:token', async (request) => {
      const { attemptId, token } = request.params as { attemptId: string; token: string };
      const db = services.database.db;
      const attempt = await findAttempt(db, attemptId);
      if (!attempt || !sameToken(attempt.callback_token, token)) throw new AppError('not_found', 'unknown callback');
      const provider = services.mediaProviders.get(attempt.provider);
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
      const notice = provider?.parseCallback ? provider.parseCallback({ headers, rawBody }) : { upstreamId: undefined };
      if (!notice) throw new AppError('invalid_input', 'the callback could not be verified');
      const task = await findTask(db, attempt.task_id);
      const now = Date.now();
      if (isOpenAttempt(attempt.state) && task && !isTerminal(task.status)) {
        if (notice.upstreamId && !attempt.upstream_id) {
          await updateAttempt(db, attempt.id, ['submitting', 'unknown', 'accepted'], { upstream_id: notice.upstreamId });
        }
        await db.transaction().execute((tx) => services.queue.enqueue(tx, newJob('task', { taskId: attempt.task_id, provider: attempt.provider }, now)));
        await services.queue.wake(attempt.provider);
        return { ok: true };
      }
      const outcome = notice.outcome?.kind;
      const leftBehind = attempt.state === 'failed' || attempt.state === 'abandoned';
      if (leftBehind && (outcome === 'completed' || outcome === 'failed')) {
        await recordLateOutcome(db, attempt.id, outcome === 'completed' ? 'succeeded' : 'failed', now);
      } else if (leftBehind) {
        // An unsigned callback: ask the upstream itself, after answering (the vendor wants a quick 2xx).
        setImmediate(() => void services.taskRunner.observeLateOutcome(attempt.id).catch((error: unknown) => request.log.warn({ err: error }, 'checking a late outcome failed')));
      }
      return { ok: true, ignored: true };
    });
  });
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
