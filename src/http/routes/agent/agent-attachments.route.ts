import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../services/agent/attachments/attachments.service.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { attachmentBody, attachmentUploadView, attachmentView } from './agent-schemas.ts';

const attachmentParams = idParam('attachmentId', 'Attachment id (att_…)');

/** Attachments: create (an upload URL), the upload itself (the gateway's own URL), complete, read. */
export function registerAgentAttachmentRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const attachmentId = (request: { params: unknown }) => (request.params as { attachmentId: string }).attachmentId;

  app.post('/api/v1/agent/conversations/:conversationId/attachments', {
    onRequest: auth,
    schema: { params: idParam('conversationId', 'Conversation id (conv_…)'), body: attachmentBody },
    config: {
      docs: {
        summary: 'Announce an attachment: its upload URL',
        description:
          'Returns an uploadUrl that takes one PUT of the raw bytes without API credentials (a presigned storage URL in scale-out, signing the type and the length; the gateway\'s own URL in embedded mode), with the announced Content-Type and Content-Length. Then POST …/complete. An upload not completed within 24 hours expires.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Where to upload', schema: envelope(attachmentUploadView) }, 400: errorResponse('Unknown type, or larger than 25 MiB'), 404: errorResponse('Conversation not found') },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.attachments.create(agentCaller(request, services), (request.params as { conversationId: string }).conversationId, request.body),
    }),
  });

  app.post('/api/v1/agent/attachments/:attachmentId/complete', {
    onRequest: auth,
    schema: { params: attachmentParams },
    config: {
      docs: {
        summary: 'Finish an upload: the bytes are checked and the original becomes immutable',
        description:
          'Checks the size, that the magic bytes are those of the announced type and that the file decodes (pictures, sound, video, PDF, text). Idempotent: a completed attachment answers as it is. A failed check keeps the upload open for a new PUT. The completed original is a temporary conversation reference for 3 days.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The completed attachment', schema: envelope(attachmentView) },
          400: errorResponse('invalid_attachment: wrong size, wrong type or undecodable'),
          404: errorResponse('Not found'),
          409: errorResponse('attachment_not_uploaded: nothing uploaded yet'),
          410: errorResponse('attachment_expired'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.attachments.complete(agentCaller(request, services), attachmentId(request)) }),
  });

  app.get('/api/v1/agent/attachments/:attachmentId', {
    onRequest: auth,
    schema: { params: attachmentParams },
    config: {
      docs: {
        summary: 'An attachment: status, measured facts, expiry',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The attachment', schema: envelope(attachmentView) }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.attachments.view(agentCaller(request, services), attachmentId(request)) }),
  });

  // The upload URL: its own scope, so that the body is a stream (never parsed or buffered here).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.put('/uploads/agent/:attachmentId', {
      bodyLimit: MAX_ATTACHMENT_BYTES,
      schema: { params: attachmentParams, querystring: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 1, maxLength: 200 } } } },
      config: {
        docs: {
          summary: 'Upload the bytes of an attachment (the uploadUrl of embedded mode)',
          description: 'No API credentials: the token of the URL authorizes this one upload. Send the announced Content-Type and Content-Length. Before completion a new PUT replaces the bytes; after it, 409.',
          tags: ['Agent'],
          auth: 'none',
          responses: { 200: { description: 'Stored' }, 400: errorResponse('Another type or length than announced'), 404: errorResponse('No upload at this URL'), 409: errorResponse('Already completed'), 410: errorResponse('Expired') },
        },
      },
      handler: async (request) => {
        await services.agent.attachments.receiveUpload(
          attachmentId(request),
          (request.query as { token: string }).token,
          { contentType: request.headers['content-type'], contentLength: request.headers['content-length'] },
          request.raw,
        );
        return { code: 200, data: { attachmentId: attachmentId(request), uploaded: true } };
      },
    });
  });
}
