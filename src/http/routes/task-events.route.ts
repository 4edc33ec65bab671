import type { FastifyInstance } from 'fastify';
import { kyselyTaskPorts } from '../../adapters/db/stores/task-store.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';
import { streamTaskEvents } from '../task-event-stream.ts';
import { errorResponse, idParam } from '../schemas.ts';

const eventSchema = {
  type: 'object',
  required: ['taskId', 'type', 'at', 'status', 'message'],
  properties: {
    taskId: { type: 'string' },
    type: { enum: ['queued', 'dispatched', 'accepted', 'failover', 'copying', 'finished', 'failed', 'expired'] },
    at: { type: 'string', format: 'date-time' },
    status: { enum: ['not_started', 'processing', 'finished', 'failed', 'expired'], description: 'The task status once this happened' },
    message: { type: 'string', description: 'What happened, in words' },
    attempt: { type: 'integer', description: 'The provider attempt (1, 2, … after failovers)' },
    files: { type: 'integer', description: 'finished: how many files' },
    error: { type: ['string', 'null'], description: 'failed: the errorMessage of the task' },
  },
};

export function registerTaskEventsRoute(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  const ports = kyselyTaskPorts(services.database.db);
  app.get('/api/v1/task/:taskId/events', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      params: idParam('taskId', 'Task id from create'),
      headers: { type: 'object', properties: { 'last-event-id': { type: 'string', description: 'The last event id received: the stream resumes strictly after it' } } },
    },
    config: {
      docs: {
        summary: 'Progress of a media task (server-sent events)',
        description:
          'Each event: `id:` its place in the task\'s history (1, 2, …), `event:` its type (queued, dispatched, accepted, failover, copying, finished, failed, expired), `data:` JSON with the time, the status and a sentence; a provider attempt is named by its number only. Reconnect with Last-Event-ID. A `: ping` after at most 15 s of silence. The stream ends after the task ends (an ended task sends its history and closes), and with `event: closed` when the API key is revoked.',
        tags: ['Generation'],
        auth: 'apiKey',
        responses: {
          200: { description: 'An event stream', contentType: 'text/event-stream', schema: eventSchema },
          400: errorResponse('Last-Event-ID is not an event id (invalid_input)'),
          401: errorResponse('Missing or invalid API key'),
          404: errorResponse('No such task for this user (task_not_found, type NotFound)'),
          429: errorResponse('Too many event streams open for this user (rate_limited): close one first'),
        },
      },
    },
    handler: async (request, reply) => {
      const { taskId } = request.params as { taskId: string };
      const { userId } = authOf(request);
      const header = request.headers['last-event-id'];
      if (Array.isArray(header)) throw invalidInput('send one Last-Event-ID header', 'Last-Event-ID');
      const cursor = header?.trim() ?? '';
      if (cursor !== '' && !/^[0-9]{1,9}$/u.test(cursor)) throw invalidInput('Last-Event-ID must be an event id of this stream (a whole number)', 'Last-Event-ID');
      const task = await ports.tasks.findUserTask(ports.uow.direct, userId, taskId);
      if (!task) throw new AppError('task_not_found', `task ${taskId} not found`);
      // Counted before anything is written: one too many is a 429 with the standard body.
      const lease = openStreams.open({ userId, keyId: request.auth?.keyId, sessionId: request.dashboardSession?.sessionId }, { counted: true });
      reply.hijack();
      await streamTaskEvents({
        res: reply.raw,
        taskId: task.id,
        read: async () => {
          const row = await ports.tasks.findUserTask(ports.uow.direct, userId, taskId);
          return row && { task: row, attempts: await ports.tasks.listAttempts(ports.uow.direct, row.id) };
        },
        watch: services.taskWatch,
        heartbeat,
        lease,
        afterId: cursor === '' ? 0 : Number(cursor),
        headers: { 'x-request-id': String(request.id) },
      });
    },
  });
}
