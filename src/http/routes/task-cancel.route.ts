import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse, idParam } from '../schemas.ts';
import { taskStatusSchema } from './task-status.route.ts';

export const taskCancelSchema = {
  type: 'object',
  required: ['taskId', 'cancelled', 'status', 'reason'],
  properties: {
    taskId: { type: 'string' },
    cancelled: { type: 'boolean', description: 'True when the task was stopped: it is `failed` with errorMessage "cancelled by the client" and refunded in full' },
    status: taskStatusSchema.properties.status,
    reason: { type: ['string', 'null'], description: 'Why nothing was cancelled (the job goes on and is charged if it finishes); null when cancelled' },
  },
};

export function registerTaskCancelRoute(app: FastifyInstance, services: AppServices): void {
  app.post('/api/v1/task/:taskId/cancel', {
    onRequest: requireApiKey(services.authenticator),
    schema: { params: idParam('taskId', 'Task id from create'), response: { 200: envelope(taskCancelSchema) } },
    config: {
      docs: {
        summary: 'Cancel a media task',
        description:
          'A task no provider has accepted yet is cancelled and refunded in full, once. One a provider already accepted is stopped there only where the provider stops it without billing it (a Replicate prediction still starting, a request still in fal\'s queue) and then refunded in full; otherwise (a job already running, a provider without a cancel call) it runs to its end and is charged, and `reason` says so. A cancelled task is `failed` with errorMessage "cancelled by the client"; its webhook fires as for any failure.',
        tags: ['Generation'],
        auth: 'apiKey',
        responses: {
          200: { description: 'What happened to the task', schema: envelope(taskCancelSchema) },
          401: errorResponse('Missing or invalid API key'),
          404: errorResponse('No such task for this user (task_not_found, type NotFound)'),
        },
      },
    },
    handler: async (request) => {
      const { taskId } = request.params as { taskId: string };
      const data = await services.taskCancels.cancel(authOf(request).userId, taskId);
      return { code: 200, data };
    },
  });
}
