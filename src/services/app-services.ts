import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/open-database.ts';
import type { Metrics } from '../adapters/metrics/metrics.ts';
import type { Config } from '../config/config.types.ts';
import type { Catalog } from '../domain/catalog/catalog.ts';
import type { EventBus } from '../ports/event-bus.port.ts';
import type { ApiKeyAuthenticator } from './api-key-authenticator.ts';
import type { ApiKeysService } from './api-keys.service.ts';
import type { EstimateService } from './estimate.service.ts';
import type { ProviderHealth } from './provider-health.ts';

/**
 * Everything the composition root (main.ts) builds once and hands down. The HTTP layer and the
 * workers receive this; nothing else opens connections or reads configuration.
 */
export interface AppServices {
  config: Config;
  database: DatabaseHandle;
  bus: EventBus;
  logger: Logger;
  metrics: Metrics;
  catalog: Catalog;
  apiKeys: ApiKeysService;
  authenticator: ApiKeyAuthenticator;
  providerHealth: ProviderHealth;
  estimates: EstimateService;
  /** Checks of outside dependencies for /readyz (database first). */
  readinessChecks: Array<{ name: string; check: () => Promise<void> }>;
}
