import type { FastifyInstance } from 'fastify';
import { LARGE_BODY_LIMIT } from '../body-limits.ts';
import { kyselyTaskPorts } from '../../adapters/db/stores/task-store.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { AppServices } from '../app-services.ts';
import { createGeneration } from '../../services/generation/create-generation.service.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse } from '../schemas.ts';
import { taskStatusSchema } from './task-status.route.ts';
import { findUserTaskStatus } from '../../adapters/db/repositories/tasks.repository.ts';
import { presentTaskStatus } from '../../services/generation/task-presenter.ts';
import { preferWaitSeconds } from '../prefer-wait.ts';
import { clientGoneController } from '../sse.ts';
import { generationBodySchema } from './estimate.route.ts';

export function registerGenerationCreateRoute(app: FastifyInstance, services: AppServices): void {
  // Built once: the create path is hot, and its ports hold no per-request state.
  const taskPorts = kyselyTaskPorts(services.database.db);
  app.post('/api/v1/generation/create', {
    bodyLimit: LARGE_BODY_LIMIT,
    onRequest: requireApiKey(services.authenticator),
    schema: {
      headers: {
        type: 'object',
        properties: {
          'idempotency-key': { type: 'string', description: 'Optional: the same key and body return the same task, charged once' },
          prefer: { type: 'string', description: 'Optional `wait=N` (1 to 60 s; bare `wait` is 60, more is held to 60, a malformed value is ignored): answer with the ended task if it ends within N seconds' },
        },
      },
    },
    config: {
      docs: {
        summary: 'Price, debit and queue a media generation; answers at once with the task id',
        description:
          'Validates `input` for the model, measures user media whose length is billed or bounded, debits exactly what /generation/estimate returns, and queues the work. Poll /task/status/{taskId} or pass `webhook`. A failed task is refunded in full.',
        tags: ['Generation'],
        auth: 'apiKey',
        requestBody: generationBodySchema(services.catalog),
        responses: {
          200: {
            description:
              'The task, `not_started`; with `Prefer: wait=N`, the ended task in the shape of GET /task/status/{taskId} when it ended within N seconds (with `Preference-Applied: wait=N`), else the same short answer',
            schema: envelope({
              oneOf: [
                {
                  type: 'object',
                  required: ['taskId', 'status', 'createdAt'],
                  properties: { taskId: { type: 'string' }, status: taskStatusSchema.properties.status, createdAt: { type: 'string', format: 'date-time' } },
                },
                taskStatusSchema,
              ],
            }),
          },
          400: errorResponse('Invalid model or input (invalid_input); nothing was charged'),
          401: errorResponse('Missing or invalid API key'),
          402: errorResponse('Insufficient balance (insufficient_balance); nothing was charged'),
          409: errorResponse('Idempotency-Key reused with a different body'),
        },
      },
    },
    handler: async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const waitSeconds = preferWaitSeconds(request.headers.prefer);
      if (Array.isArray(key)) throw invalidInput('send one Idempotency-Key header', 'Idempotency-Key');
      const model = (request.body as { model?: unknown } | undefined)?.model;
      const release = await services.keyDoor.admit(authOf(request).keyId, typeof model === 'string' ? model : undefined, 'media');
      const { task } = await createGeneration(
        {
          ...taskPorts,
          catalog: services.catalog,
          estimates: services.estimates,
          queue: services.queue,
          writes: services.writes,
          routes: services.mediaRoutes,
          allowPrivateUrls: services.config.allowPrivateUrls,
          webhookPorts: services.config.webhooks.ports,
          publicBaseUrl: () => services.config.publicBaseUrl,
          routeRefusal: (route, media) => services.mediaProviders.get(route.provider)?.refusal?.(media),
        },
        authOf(request).userId,
        request.body,
        key,
        authOf(request).keyId ?? null,
      ).finally(release);
      if (waitSeconds !== undefined) {
        reply.header('preference-applied', `wait=${waitSeconds}`);
        const userId = authOf(request).userId;
        // The wait ends early when the client goes away (its subscription and timer are released then).
        const gone = clientGoneController(reply.raw);
        const ended = await services.taskWatch.waitForEnd(task.id, () => findUserTaskStatus(services.database.db, userId, task.id), waitSeconds * 1000, gone.signal);
        if (ended) return { code: 200, data: presentTaskStatus(ended, services.blobs) };
      }
      return { code: 200, data: { taskId: task.id, status: task.status, createdAt: new Date(task.created_at).toISOString() } };
    },
  });
}
