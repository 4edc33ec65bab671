import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { registerBillingAccountRoutes } from './billing-account.route.ts';
import { registerBillingTopupRoutes } from './billing-topups.route.ts';

export function registerBillingRoutes(app: FastifyInstance, services: AppServices): void {
  registerBillingAccountRoutes(app, services);
  registerBillingTopupRoutes(app, services);
}
