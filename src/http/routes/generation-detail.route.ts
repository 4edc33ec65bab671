import { readSnapshot } from '../../adapters/db/read-snapshot.ts';
import type { FastifyInstance } from 'fastify';
import { findUserTask, listAttempts } from '../../adapters/db/repositories/tasks.repository.ts';
import type { MeasuredMedia, ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import { AppError } from '../../domain/errors.ts';
import { MICRO_PER_CENT } from '../../domain/money.ts';
import type { AppServices } from '../../services/app-services.ts';
import { presentTaskStatus } from '../../services/generation/task-presenter.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse, idParam, iso } from '../schemas.ts';

/**
 * Everything about one generation: the request (prompt, resolution and the rest of `input`), the
 * price, every provider attempt (provider, upstream id, state, error, timings) and the webhook
 * deliveries. The body is ours to define (docs/decisions.md).
 */
export function registerGenerationDetailRoute(app: FastifyInstance, services: AppServices, deliveriesFor: (userId: string, taskId: string) => Promise<unknown[]>): void {
  app.get('/api/v1/generation/:generationId', {
    onRequest: requireApiKey(services.authenticator),
    schema: { params: idParam('generationId', 'The task id') },
    config: {
      docs: {
        summary: 'A generation with its request, price, provider attempts and webhook deliveries',
        tags: ['Generation'],
        auth: 'apiKey',
        responses: { 200: { description: 'The generation', schema: envelope({ type: 'object' }) }, 404: errorResponse('No such generation for this user') },
      },
    },
    handler: async (request) => {
      const { generationId } = request.params as { generationId: string };
      const { userId } = authOf(request);
      // The task and its attempts from one snapshot: a finished task never shows its attempt still running.
      const { task, attempts } = await readSnapshot(services.database.db, async (tx) => {
        const task = await findUserTask(tx, userId, generationId);
        if (!task) throw new AppError('task_not_found', `generation ${generationId} not found`);
        return { task, attempts: await listAttempts(tx, task.id) };
      });
      const input = JSON.parse(task.input_json) as ValidatedInput;
      const status = presentTaskStatus(task, services.blobs);
      return {
        code: 200,
        data: {
          generationId: task.id,
          taskId: task.id,
          model: task.model,
          type: task.type,
          family: task.family,
          status: task.status,
          prompt: typeof input.prompt === 'string' ? input.prompt : null,
          resolution: typeof input.resolution === 'string' ? input.resolution : null,
          input,
          measuredMedia: JSON.parse(task.measured_json) as MeasuredMedia[],
          cost: {
            microUsd: String(task.cost_micro),
            cents: task.cost_micro / MICRO_PER_CENT,
            tier: task.price_tier,
            unit: task.price_unit,
            units: task.price_units,
            refundedMicroUsd: String(task.refunded_micro),
          },
          files: status.files,
          output: status.output,
          errorMessage: task.error_message,
          createdAt: iso(task.created_at),
          startedAt: iso(task.started_at),
          finishedAt: iso(task.finished_at),
          expiresAt: iso(task.expires_at),
          webhook: task.webhook_url ? { url: task.webhook_url, deliveries: await deliveriesFor(userId, task.id) } : null,
          attempts: attempts.map((a) => ({
            attempt: a.attempt_no,
            provider: a.provider,
            upstreamModel: a.upstream_model,
            upstreamId: a.upstream_id,
            state: a.state,
            error: a.error_message,
            retryable: a.error_retryable === null ? null : a.error_retryable === 1,
            polls: a.polls,
            startedAt: iso(a.started_at),
            acceptedAt: iso(a.accepted_at),
            endedAt: iso(a.ended_at),
            lateOutcome: a.late_outcome,
            lateAt: iso(a.late_at),
          })),
        },
      };
    },
  });
}
