import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import type { OpenStreams } from '../../open-streams.ts';
import type { SseHeartbeat } from '../../sse.ts';
import { registerAgentAttachmentRoutes } from './agent-attachments.route.ts';
import { registerAgentContextRoutes } from './agent-context.route.ts';
import { registerAgentWorkflowRoutes } from './agent-workflows.route.ts';
import { registerAgentConversationRoutes } from './agent-conversations.route.ts';
import { registerAgentMessageRoutes } from './agent-messages.route.ts';
import { registerAgentRunRoutes } from './agent-runs.route.ts';
import { registerAgentSettingsRoutes } from './agent-settings.route.ts';
import { registerAgentStorageRoutes } from './agent-storage.route.ts';
import { registerAgentWebhookRoutes } from './agent-webhooks.route.ts';
import { registerAgentProjectRoutes } from './agent-projects.route.ts';

/** Every agent endpoint (SPEC "Agent"), under /api/v1/agent. */
export function registerAgentRoutes(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  registerAgentSettingsRoutes(app, services);
  registerAgentConversationRoutes(app, services);
  registerAgentMessageRoutes(app, services, heartbeat, openStreams);
  registerAgentRunRoutes(app, services);
  registerAgentWebhookRoutes(app, services);
  registerAgentAttachmentRoutes(app, services);
  registerAgentContextRoutes(app, services);
  registerAgentWorkflowRoutes(app, services);
  registerAgentStorageRoutes(app, services);
  registerAgentProjectRoutes(app, services);
}
