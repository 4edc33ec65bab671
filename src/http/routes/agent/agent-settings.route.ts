import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { agentModelView, agentProfileView, putSettingsBody, settingsView } from './agent-schemas.ts';
import { AGENT_PROFILES } from '../../../domain/agent/profiles.ts';

export function registerAgentSettingsRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);

  app.get('/api/v1/agent/settings', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Your agent defaults on this storefront, and their version',
        description: 'Version 0 means never saved: the built-in defaults.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Settings', schema: envelope(settingsView) } },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.settings.get(agentCaller(request, services)) }),
  });

  app.put('/api/v1/agent/settings', {
    onRequest: auth,
    schema: { body: putSettingsBody },
    config: {
      docs: {
        summary: 'Save your agent defaults (optimistic versioning)',
        description: 'Fields you omit keep their values. An unknown or unavailable model, or a media default of the wrong modality, is refused with 400 naming the field; a stale expectedVersion with 409 version_conflict.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'Saved; the new version', schema: envelope(settingsView) },
          400: errorResponse('A field is invalid (invalid_input, param names it)'),
          409: errorResponse('expectedVersion is stale (version_conflict)'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.settings.put(agentCaller(request, services), request.body) }),
  });

  app.get('/api/v1/agent/profiles', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Assistant profiles a conversation can start with',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Profiles', schema: envelope({ type: 'array', items: agentProfileView }) } },
      },
    },
    handler: async () => ({ code: 200, data: AGENT_PROFILES.map((p) => ({ profileId: p.id, name: p.name, description: p.description })) }),
  });

  app.get('/api/v1/agent/models', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'The models an agent run can use, with prices and verified route capabilities',
        description:
          'Text models report tools, imageInput and structuredOutput as verified, failed or unverified, from probes the gateway ran on each route (never from the model name); media models their prices and how many reference images they take.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Models', schema: envelope({ type: 'array', items: agentModelView }) } },
      },
    },
    handler: async () => ({ code: 200, data: await services.agent.models.list() }),
  });
}
