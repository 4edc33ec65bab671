import type { FastifyInstance } from 'fastify';
import { findUserTaskStatus } from '../../adapters/db/repositories/tasks.repository.ts';
import { AppError } from '../../domain/errors.ts';
import type { AppServices } from '../app-services.ts';
import { presentTaskStatus } from '../../services/generation/task-presenter.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse, idParam } from '../schemas.ts';

export const taskStatusSchema = {
  type: 'object',
  required: ['taskId', 'status', 'files', 'output', 'createdTime', 'errorMessage'],
  properties: {
    taskId: { type: 'string' },
    status: { enum: ['not_started', 'processing', 'finished', 'failed', 'expired'] },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['fileUrl', 'fileType'],
        properties: { fileUrl: { type: 'string', description: 'Direct URL, kept 3 days' }, fileType: { enum: ['image', 'video', 'music'] } },
      },
    },
    output: { type: ['object', 'null'], additionalProperties: true, description: 'Structured result: music `tracks`, or the result of a data action' },
    createdTime: { type: 'string', format: 'date-time' },
    errorMessage: { type: ['string', 'null'] },
  },
};

export function registerTaskStatusRoute(app: FastifyInstance, services: AppServices): void {
  const ended = services.taskStatuses;
  app.get('/api/v1/task/status/:taskId', {
    onRequest: requireApiKey(services.authenticator),
    // The response schema lets Fastify serialize with a compiled function (the route is benchmarked).
    schema: { params: idParam('taskId', 'Task id from create'), response: { 200: envelope(taskStatusSchema) } },
    config: {
      docs: {
        summary: 'The status of a task, with its files when finished',
        tags: ['Generation'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The task', schema: envelope(taskStatusSchema) },
          401: errorResponse('Missing or invalid API key'),
          404: errorResponse('No such task for this user (task_not_found, type NotFound)'),
        },
      },
    },
    handler: async (request) => {
      const { taskId } = request.params as { taskId: string };
      const { userId } = authOf(request);
      const cached = ended.get(userId, taskId);
      if (cached) return { code: 200, data: cached };
      const task = await findUserTaskStatus(services.database.db, userId, taskId);
      if (!task) throw new AppError('task_not_found', `task ${taskId} not found`);
      const data = presentTaskStatus(task, services.blobs);
      ended.remember(userId, task, data);
      return { code: 200, data };
    },
  });
}
