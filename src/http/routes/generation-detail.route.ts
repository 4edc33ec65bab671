import { readSnapshot } from '../../adapters/db/read-snapshot.ts';
import type { FastifyInstance } from 'fastify';
import { findUserTask, listAttempts } from '../../adapters/db/repositories/tasks.repository.ts';
import type { MeasuredMedia, ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import { AppError } from '../../domain/errors.ts';
import { MICRO_PER_CENT } from '../../domain/money.ts';
import type { AppServices } from '../app-services.ts';
import { presentTaskStatus } from '../../services/generation/task-presenter.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse, idParam, iso } from '../schemas.ts';
import { taskStatusSchema } from './task-status.route.ts';
import { deliverySchema } from './webhook-secret.route.ts';

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

const attemptSchema = {
  type: 'object',
  required: ['attempt', 'provider', 'upstreamModel', 'upstreamId', 'state', 'error', 'retryable', 'polls', 'startedAt', 'acceptedAt', 'endedAt', 'lateOutcome', 'lateAt'],
  properties: {
    attempt: { type: 'integer', description: 'From 1, in the order tried' },
    provider: { type: 'string' },
    upstreamModel: { type: 'string' },
    upstreamId: { type: ['string', 'null'], description: "The provider's id of the job, once it accepted it" },
    state: { type: 'string' },
    error: { type: ['string', 'null'] },
    retryable: { type: ['boolean', 'null'], description: 'Whether the error let the next provider be tried' },
    polls: { type: 'integer' },
    startedAt: nullableTime,
    acceptedAt: nullableTime,
    endedAt: nullableTime,
    lateOutcome: { type: ['string', 'null'], description: 'What the provider reported after we had left the attempt' },
    lateAt: nullableTime,
  },
};

const generationDetailSchema = {
  type: 'object',
  required: [
    'generationId', 'taskId', 'model', 'type', 'family', 'status', 'prompt', 'resolution', 'input', 'measuredMedia', 'cost', 'files', 'output',
    'errorMessage', 'createdAt', 'startedAt', 'finishedAt', 'expiresAt', 'webhook', 'attempts',
  ],
  properties: {
    generationId: { type: 'string' },
    taskId: { type: 'string', description: 'The same id, as create and the status endpoint name it' },
    model: { type: 'string' },
    type: { type: 'string', enum: ['IMAGE', 'VIDEO', 'MUSIC'] },
    family: { type: 'string' },
    status: taskStatusSchema.properties.status,
    prompt: { type: ['string', 'null'] },
    resolution: { type: ['string', 'null'] },
    input: { type: 'object', additionalProperties: true, description: 'The validated input, defaults applied' },
    measuredMedia: {
      type: 'array',
      description: 'The input media measured for the price',
      items: {
        type: 'object',
        required: ['url', 'bytes'],
        properties: { url: { type: 'string' }, durationS: { type: 'number' }, format: { type: 'string' }, bytes: { type: 'integer' } },
      },
    },
    cost: {
      type: 'object',
      required: ['microUsd', 'cents', 'tier', 'unit', 'units', 'refundedMicroUsd'],
      properties: {
        microUsd: { type: 'string', description: 'What the create debited, integer micro-USD' },
        cents: { type: 'number', description: 'The same in USD cents (exact)' },
        tier: { type: 'string', description: 'The price tier that applied' },
        unit: { type: 'string' },
        units: { type: 'number' },
        refundedMicroUsd: { type: 'string', description: 'Refunded on failure, integer micro-USD' },
      },
    },
    files: taskStatusSchema.properties.files,
    output: taskStatusSchema.properties.output,
    errorMessage: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    startedAt: nullableTime,
    finishedAt: nullableTime,
    expiresAt: nullableTime,
    webhook: {
      oneOf: [
        { type: 'object', required: ['url', 'deliveries'], properties: { url: { type: 'string' }, deliveries: { type: 'array', items: deliverySchema } } },
        { type: 'null' },
      ],
      description: 'The completion webhook, when the create gave one',
    },
    attempts: { type: 'array', items: attemptSchema },
  },
};

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
        responses: { 200: { description: 'The generation', schema: envelope(generationDetailSchema) }, 404: errorResponse('No such generation for this user') },
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
