import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import type { OpenApiCollector } from '../openapi/openapi-collector.ts';
import { registerAdminLedgerRoutes } from './admin/admin-ledger.route.ts';
import { registerAdminProviderRoutes } from './admin/admin-providers.route.ts';
import { registerAdminUserRoutes } from './admin/admin-users.route.ts';
import { registerApiKeyRoutes } from './api-keys.route.ts';
import { registerCatalogRoutes } from './catalog.route.ts';
import { registerCostRoutes } from './cost.route.ts';
import { registerEstimateRoute } from './estimate.route.ts';
import { registerHealthRoutes } from './health.route.ts';
import { registerModelsRoute } from './models.route.ts';
import { registerOpenApiRoutes } from './openapi.route.ts';
import { registerUserMeRoute } from './user-me.route.ts';

export function registerRoutes(app: FastifyInstance, services: AppServices, openapi: OpenApiCollector): void {
  registerHealthRoutes(app, services);
  registerUserMeRoute(app, services);
  registerApiKeyRoutes(app, services);
  registerCatalogRoutes(app, services, (name, schema) => openapi.defineComponent(name, schema));
  registerCostRoutes(app, services);
  registerModelsRoute(app, services);
  registerEstimateRoute(app, services);
  registerAdminUserRoutes(app, services);
  registerAdminLedgerRoutes(app, services);
  registerAdminProviderRoutes(app, services);
  registerOpenApiRoutes(app, services, openapi);
}
