import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { MemoryEventBus } from './adapters/bus/memory-event-bus.ts';
import { RedisEventBus } from './adapters/bus/redis-event-bus.ts';
import { migrate } from './adapters/db/migrate.ts';
import { type DatabaseHandle, openDatabase } from './adapters/db/open-database.ts';
import { GuardedMediaMeasurer } from './services/media-measurer.service.ts';
import { Metrics } from './adapters/metrics/metrics.ts';
import { GuardedHttpClient } from './adapters/outbound/guarded-http-client.ts';
import type { Config } from './config/config.types.ts';
import { Catalog } from './domain/catalog/catalog.ts';
import { buildHttpApp } from './http/app.ts';
import type { EventBus } from './ports/event-bus.port.ts';
import { ApiKeyAuthenticator } from './services/api-key-authenticator.ts';
import { ApiKeysService } from './services/api-keys.service.ts';
import type { AppServices } from './services/app-services.ts';
import { ensureDemoUser } from './services/demo-user.ts';
import { EstimateService } from './services/estimate.service.ts';
import { ProviderHealth } from './services/provider-health.ts';

export interface GatewayOptions {
  /** Where logs go (tests pass a quiet or capturing stream). */
  logger?: Logger;
  /** Called once with the demo user's key on the very first start. */
  onDemoKey?: (key: string) => void;
  /** Listen on this port instead of config.port (tests use 0 for a free one). */
  listenPort?: number;
}

export interface Gateway {
  services: AppServices;
  /** Present when the role serves HTTP. */
  http: FastifyInstance | undefined;
  /** http://host:port actually bound, when listening. */
  url: string | undefined;
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'switchboard', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.apiKey', '*.key'], censor: '[redacted]' },
  });
}

/** Opens the store, applies migrations and builds every service: the composition root proper. */
export async function buildServices(config: Config, logger: Logger): Promise<AppServices> {
  const catalog = Catalog.build({ models: config.models, addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels });
  const database: DatabaseHandle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(database);
  const bus: EventBus = config.redisUrl ? new RedisEventBus(config.redisUrl, config.redisPrefix) : new MemoryEventBus();
  const authenticator = new ApiKeyAuthenticator(database.db, bus);
  const apiKeys = new ApiKeysService(database.db, bus, (hash) => authenticator.forget(hash));
  const outbound = new GuardedHttpClient({ allowPrivate: config.allowPrivateUrls });
  const readinessChecks: AppServices['readinessChecks'] = [
    { name: 'database', check: async () => void (await database.db.selectFrom('schema_migrations').select('version').limit(1).execute()) },
  ];
  if (bus instanceof RedisEventBus) readinessChecks.push({ name: 'redis', check: () => bus.ping() });
  return {
    config,
    database,
    bus,
    logger,
    metrics: new Metrics(),
    catalog,
    apiKeys,
    authenticator,
    providerHealth: new ProviderHealth(),
    estimates: new EstimateService(catalog, new GuardedMediaMeasurer(outbound)),
    readinessChecks,
  };
}

/** Starts what the role asks for: HTTP (api), the workers (worker), or both (all). */
export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config);
  const services = await buildServices(config, logger);
  await services.authenticator.start();

  if (config.demoUser) {
    const demo = await ensureDemoUser(services.database.db, services.apiKeys);
    if (demo) options.onDemoKey?.(demo.key);
  }

  let http: FastifyInstance | undefined;
  let url: string | undefined;
  if (config.role !== 'worker') {
    http = buildHttpApp(services).app;
    url = await http.listen({ port: options.listenPort ?? config.port, host: config.host });
    if (config.host === '0.0.0.0' || config.host === '::') url = url.replace(/\/\/[^:/]+/, '//127.0.0.1');
    if (!config.publicBaseUrlIsExplicit) config.publicBaseUrl = url;
  }

  let closed = false;
  return {
    services,
    http,
    url,
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests first (in-flight ones finish), then the background parts, then storage.
      await http?.close();
      await services.authenticator.stop();
      await services.bus.close();
      await services.database.close();
    },
  };
}
