import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import type { OpenApiCollector } from '../openapi/openapi-collector.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';
import { registerAdminLedgerRoutes } from './admin/admin-ledger.route.ts';
import { registerAdminProviderRoutes } from './admin/admin-providers.route.ts';
import { registerAdminCheckoutRoutes } from './admin/admin-checkouts.route.ts';
import { registerAdminRedeemCodeRoutes } from './admin/admin-redeem-codes.route.ts';
import { registerBillingRoutes } from './billing/index.ts';
import { registerAdminUserRoutes } from './admin/admin-users.route.ts';
import { registerApiKeyRoutes } from './api-keys.route.ts';
import { registerAdminRoleRoute } from './auth/admin-role.route.ts';
import { registerSessionRoutes } from './auth/session.route.ts';
import { registerGenerationsListRoute } from './generations-list.route.ts';
import { registerStatsRoute } from './stats.route.ts';
import { registerWebApp } from '../static/web-app.route.ts';
import { registerCatalogRoutes } from './catalog.route.ts';
import { registerChatCompletionsRoute } from './chat-completions.route.ts';
import { registerMessagesRoute } from './messages.route.ts';
import { registerResponsesRoute } from './responses.route.ts';
import { registerCostRoutes } from './cost.route.ts';
import { registerEstimateRoute } from './estimate.route.ts';
import { registerFilesRoute } from './files.route.ts';
import { registerGenerationCreateRoute } from './generation-create.route.ts';
import { registerGenerationDetailRoute } from './generation-detail.route.ts';
import { registerHealthRoutes } from './health.route.ts';
import { registerMediaCallbackRoute } from './media-callback.route.ts';
import { registerModelsRoute } from './models.route.ts';
import { registerOpenApiRoutes } from './openapi.route.ts';
import { registerTaskStatusRoute } from './task-status.route.ts';
import { registerUserMeRoute } from './user-me.route.ts';
import { registerWebhookSecretRoutes } from './webhook-secret.route.ts';
import { listDeliveriesForTask } from '../../services/webhooks/webhook-deliveries.ts';
import { registerAgentRoutes } from './agent/index.ts';

/** `chatHeartbeat`: the keep-alive timer of every open event stream, shared with the chat lane. */
/** `openStreams`: every event stream of this process by its credential (closed on revocation, capped per user). */
export function registerRoutes(app: FastifyInstance, services: AppServices, openapi: OpenApiCollector, chatHeartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  // Dashboard sessions: requireApiKey/requireAdmin accept the session cookie through this (auth.ts).
  app.decorate('sessionAuth', services.auth);
  app.decorateRequest('dashboardSession', null);
  registerHealthRoutes(app, services);
  registerUserMeRoute(app, services);
  registerApiKeyRoutes(app, services);
  registerCatalogRoutes(app, services, (name, schema) => openapi.defineComponent(name, schema));
  registerCostRoutes(app, services);
  registerModelsRoute(app, services);
  registerChatCompletionsRoute(app, services, chatHeartbeat, openStreams);
  registerMessagesRoute(app, services, chatHeartbeat, openStreams);
  registerResponsesRoute(app, services, chatHeartbeat, openStreams);
  registerEstimateRoute(app, services);
  registerGenerationCreateRoute(app, services);
  registerTaskStatusRoute(app, services);
  registerGenerationDetailRoute(app, services, (userId, taskId) => listDeliveriesForTask(services.database.db, userId, taskId));
  registerMediaCallbackRoute(app, services);
  registerFilesRoute(app, services.blobs, { retentionMs: services.config.fileRetentionMs });
  registerWebhookSecretRoutes(app, { db: services.database.db, authenticator: services.authenticator, webhookSecrets: services.webhookSecrets });
  registerSessionRoutes(app, services);
  registerStatsRoute(app, services);
  registerGenerationsListRoute(app, services);
  registerAgentRoutes(app, services, chatHeartbeat, openStreams);
  registerAdminUserRoutes(app, services);
  registerAdminRoleRoute(app, services);
  registerAdminLedgerRoutes(app, services);
  registerAdminProviderRoutes(app, services);
  registerBillingRoutes(app, services);
  registerAdminRedeemCodeRoutes(app, services);
  registerAdminCheckoutRoutes(app, services);
  registerOpenApiRoutes(app, services, openapi);
  // Attachments upload straight to S3 in scale-out: the page may connect there.
  registerWebApp(app, undefined, services.config.s3 ? [new URL(services.config.s3.endpoint).origin] : []);
}
