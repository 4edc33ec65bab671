import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { requireApiKey } from '../auth.ts';
import { envelope, errorResponse, idParam } from '../schemas.ts';
import { agentCaller } from './agent/agent-caller.ts';
import { attachmentBody, attachmentUploadView, attachmentView } from './agent/agent-schemas.ts';

/** The completed upload: the attachment's facts and the gateway file URL a media field takes. */
const playgroundUploadView = {
  ...attachmentView,
  required: ['attachmentId', 'status', 'url'],
  properties: { ...(attachmentView.properties as Record<string, unknown>), url: { type: 'string', description: 'The gateway file URL of the original: put it in a media field of a generation.' } },
};

/**
 * Playground uploads (issue 21, item 16): a file from disk for a media field. The agent's attachment
 * machinery (announce, PUT to the upload URL, complete with checks), under no conversation.
 */
export function registerPlaygroundUploadRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);

  app.post('/api/v1/playground/uploads', {
    onRequest: auth,
    schema: { body: attachmentBody },
    config: {
      docs: {
        summary: 'Announce a file for a media field: its upload URL',
        description:
          'As an agent attachment: PUT the raw bytes to uploadUrl with the announced Content-Type and Content-Length, then POST …/complete, which answers the gateway file URL to use in a generation. An upload not completed within 24 hours expires; a completed one is kept 3 days.',
        tags: ['Generations'],
        auth: 'apiKey',
        responses: { 200: { description: 'Where to upload', schema: envelope(attachmentUploadView) }, 400: errorResponse('Unknown type, or larger than 25 MiB') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.attachments.createForPlayground(agentCaller(request, services), request.body) }),
  });

  app.post('/api/v1/playground/uploads/:uploadId/complete', {
    onRequest: auth,
    schema: { params: idParam('uploadId', 'Upload id (att_…)') },
    config: {
      docs: {
        summary: 'Finish a playground upload: the bytes are checked, the answer carries its gateway file URL',
        description: 'Checks as an agent attachment (size, magic bytes, decoding). Idempotent.',
        tags: ['Generations'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The completed upload', schema: envelope(playgroundUploadView) },
          400: errorResponse('invalid_attachment: wrong size, wrong type or undecodable'),
          404: errorResponse('Not found'),
          409: errorResponse('attachment_not_uploaded: nothing uploaded yet'),
          410: errorResponse('attachment_expired'),
        },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.attachments.completeForPlayground(agentCaller(request, services), (request.params as { uploadId: string }).uploadId),
    }),
  });
}
