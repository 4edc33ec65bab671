import { DbUpstreamAnomalyLog } from './adapters/db/repositories/upstream-anomalies.repository.ts';
import { DbRouteReportStore } from './adapters/db/repositories/route-report.repository.ts';
import { RouteReportService } from './services/upstreams/route-report.service.ts';
import { kyselyTaskPorts, kyselyTaskStore } from './adapters/db/stores/task-store.ts';
import { kyselyWebhookPorts, kyselyWebhookStore } from './adapters/db/stores/webhook-store.ts';
import { KyselyBudgetAlertStore } from './adapters/db/stores/budget-alert-store.ts';
import { BudgetAlertsService } from './services/accounts/budget-alerts.service.ts';
import { createBudgetAlertHandler } from './services/accounts/budget-alert-job.ts';
import { kyselyAttemptHealthStore } from './adapters/db/stores/attempt-health-store.ts';
import { kyselyUnitOfWork } from './adapters/db/stores/kysely-unit-of-work.ts';
import { hostname } from 'node:os';
import { buildBillingServices } from './services/billing/billing.module.ts';
import { buildPaymentProvider } from './providers/registries/payments.registry.ts';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { LocalBlobStore } from './adapters/blob/local-blob-store.ts';
import { S3BlobStore } from './adapters/blob/s3-blob-store.ts';
import { MemoryEventBus } from './adapters/bus/memory-event-bus.ts';
import { RedisEventBus } from './adapters/bus/redis-event-bus.ts';
import { MemoryConcurrencyLimiter } from './adapters/concurrency/memory-concurrency-limiter.ts';
import { RedisConcurrencyLimiter } from './adapters/concurrency/redis-concurrency-limiter.ts';
import { MemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.ts';
import { RedisRateLimiter } from './adapters/rate-limit/redis-rate-limiter.ts';
import { MemoryTokenBudget } from './adapters/rate-limit/memory-token-budget.ts';
import { RedisTokenBudget } from './adapters/rate-limit/redis-token-budget.ts';
import type { TokenBudget } from './ports/token-budget.port.ts';
import { BoundedRedis } from './adapters/resilience/bounded-redis.ts';
import type { ConcurrencyLimiter } from './ports/concurrency-limiter.port.ts';
import type { RateLimiter } from './ports/rate-limiter.port.ts';
import { isStoreFull } from './adapters/db/db-errors.ts';
import { migrate } from './adapters/db/migrate.ts';
import { assertRoomToStart, dataDirFullError, freeBytes } from './adapters/fs/data-dir-space.ts';
import { makePrivateDir } from './adapters/fs/private-files.ts';
import { StoreFullWatch } from './adapters/resilience/store-full-watch.ts';
import { type DatabaseHandle, openDatabase } from './adapters/db/open-database.ts';
import { warmUpPatternEngine } from './domain/agent/user-pattern.ts';
import { GuardedMediaMeasurer } from './services/generation/media-measurer.service.ts';
import { Metrics } from './adapters/metrics/metrics.ts';
import { OtelTracer } from './adapters/tracing/otel-tracer.ts';
import { NOOP_TRACER, type Tracer } from './ports/tracer.port.ts';
import { GuardedHttpClient } from './adapters/outbound/guarded-http-client.ts';
import { TransactionBatcher } from './adapters/db/transaction-batcher.ts';
import { BatchedLogWriter } from './adapters/logging/batched-log-writer.ts';
import { CPU_TASK_DEADLINES_MS } from './adapters/cpu/cpu-tasks.ts';
import { ThreadPool } from './adapters/cpu/thread-pool.ts';
import type { CpuTaskCatalog } from './ports/cpu-pool.port.ts';
import { DbWorkQueue } from './adapters/queue/db-work-queue.ts';
import type { Config } from './config/config.types.ts';
import { Catalog } from './domain/catalog/catalog.ts';
import { chatEntryAtLoss } from './domain/routing/route-cost.ts';
import { modelsWithoutLiveRoute } from './services/generation/live-routes.ts';
import { buildHttpApp } from './http/app.ts';
import { newId } from './domain/ids.ts';
import type { BlobStore } from './ports/blob-store.port.ts';
import type { EventBus } from './ports/event-bus.port.ts';
import { MediaProviderPool } from './services/upstreams/media-provider-pool.ts';
import { UpstreamDirectory } from './services/upstreams/upstream-directory.ts';
import { UpstreamSettingsService } from './services/upstreams/upstream-settings.service.ts';
import { CustomerGroupDirectory } from './services/pricing/customer-group-directory.ts';
import { CustomerGroupsService } from './services/pricing/customer-groups.service.ts';
import { kyselyCustomerGroupsStore } from './adapters/db/stores/customer-groups-store.ts';
import { ProviderTestService } from './services/upstreams/provider-test.service.ts';
import { checkProviderKey, createKeyCheckClient } from './providers/key-check.ts';
import { RoutePlanner } from './services/upstreams/route-planner.ts';
import { liveMediaRoutes } from './services/upstreams/live-media-routes.ts';
import { MemoryHealthBoard } from './adapters/health/memory-health-board.ts';
import { RedisHealthBoard } from './adapters/health/redis-health-board.ts';
import { MemoryTrafficTally } from './adapters/traffic/memory-traffic-tally.ts';
import { RedisTrafficTally } from './adapters/traffic/redis-traffic-tally.ts';
import type { TrafficTally } from './ports/traffic-tally.port.ts';
import { loadGatewaySecretBox } from './adapters/crypto/load-secret-box.ts';
import { kyselyUpstreamSettingsStore } from './adapters/db/stores/upstream-settings-store.ts';
import type { UpstreamHealthBoard } from './ports/upstream-health.port.ts';
import { ApiKeyAuthenticator } from './services/accounts/api-key-authenticator.ts';
import { KeyDoor } from './services/accounts/key-door.ts';
import { ApiKeysService } from './services/accounts/api-keys.service.ts';
import { OrganizationsService } from './services/accounts/organizations.service.ts';
import { KyselyOrganizationStore } from './adapters/db/stores/organization-store.ts';
import type { AppServices } from './http/app-services.ts';
import { AuthService } from './services/auth/auth.service.ts';
import { sampleHolds, sampleQueue } from './adapters/db/repositories/operations-sample.repository.ts';
import { recordServedBaseUrl } from './config/served-base-url.ts';
import { EmailedSignInLinks } from './services/auth/emailed-sign-in-links.ts';
import { SsoSignIn } from './services/auth/sso/sso-sign-in.service.ts';
import { kyselyOidcStore } from './adapters/db/stores/oidc-store.ts';
import { LogMailer } from './adapters/mail/log-mailer.ts';
import { SmtpMailer } from './adapters/mail/smtp-mailer.ts';
import type { Mailer } from './ports/mailer.port.ts';
import { createChatProviderRegistry } from './providers/registries/chat.registry.ts';
import { isMediaProviderType, mediaProviderTypes } from './providers/registries/media.registry.ts';
import { ChatRouter } from './services/chat/chat-router.ts';
import { ChatService } from './services/chat/chat.service.ts';
import { buildTextExtras, type TextExtras } from './services/text-extras/text-extras.module.ts';
import { createChatSettleHandler } from './services/chat/chat-settle.job.ts';
import { createChatLedger } from './adapters/db/ledger/chat-ledger-factory.ts';
import { accountPortsOf } from './adapters/db/stores/account-ports.ts';
import { kyselyLedgerBook } from './adapters/db/ledger/ledger-book.ts';
import { KyselyStatsStore } from './adapters/db/stores/stats-store.ts';
import { KyselyStorageStore } from './adapters/db/stores/storage-store.ts';
import { KyselyAgentLibraryStore } from './adapters/db/stores/agent-library-store.ts';
import { KyselyAgentStore } from './adapters/db/stores/agent-store.ts';
import { KyselyAgentViews } from './adapters/db/stores/agent-views.ts';
import { kyselyChatStore } from './adapters/db/stores/chat-store.ts';
import type { RouteRefusalCheck } from './services/generation/create-generation.service.ts';
import { ensureDemoUser } from './services/accounts/demo-user.ts';
import { EstimateService } from './services/generation/estimate.service.ts';
import { ResultStore } from './services/generation/result-store.ts';
import { presentTaskStatus } from './services/generation/task-presenter.ts';
import { TaskStatusCache } from './services/generation/task-status-cache.ts';
import { TaskCanceller } from './services/generation/task-cancel.service.ts';
import { TaskWatch } from './services/generation/task-watch.ts';
import { createRetentionSweeper } from './services/generation/retention-sweeper.ts';
import { DEFAULT_TIMINGS, TaskRunner } from './services/generation/task-runner.ts';
import type { TerminalHook } from './services/generation/task-transitions.ts';
import { ProviderHealth } from './services/upstreams/provider-health.ts';
import { createWebhookGiveUp, createWebhookJobHandler } from './services/webhooks/webhook-delivery.handler.ts';
import { enqueueTaskWebhook } from './services/webhooks/webhook-deliveries.ts';
import { webhookLaneCaps } from './services/webhooks/webhook-fairness.ts';
import { WebhookSecretService } from './services/webhooks/webhook-secret.service.ts';
import { JOB_QUEUES, recurringJobs } from './domain/jobs/job-catalog.ts';
import { bindJobCatalog, type JobHandlers } from './workers/job-binding.ts';
import type { JobHandler } from './ports/work-queue.port.ts';
import { WorkerPool } from './workers/worker-pool.ts';
import { AgentClock } from './services/agent/agent-clock.ts';
import { buildAgentServices } from './services/agent/agent.module.ts';
import { createAttachmentCleanupHandler, createCapabilityProbeHandler, createEventPruneHandler, createIdempotencyPruneHandler } from './services/agent/agent-maintenance.ts';
import { createRunJobHandler } from './services/agent/engine/run-engine.ts';
import { createRunGiveUp } from './services/agent/engine/run-give-up.ts';
import { wakeRunForTask } from './services/agent/runs/run-jobs.ts';
import { createStorageBillingHandler } from './services/storage/storage-billing.ts';
import { createStorageCopyGiveUp, createStorageCopyHandler } from './services/storage/storage-files.service.ts';
import { buildStorageServices } from './services/storage/storage.module.ts';

export interface GatewayOptions {
  /** Where logs go (tests pass a quiet or capturing stream). */
  logger?: Logger;
  /** Called once on the very first start with the demo user's key and a one-time dashboard sign-in URL (none for a worker). */
  onDemoKey?: (key: string, signInUrl?: string) => void;
  /** Listen on this port instead of config.port (tests use 0 for a free one). */
  listenPort?: number;
  /** Tracing set up by the caller (tests hand in one on an in-memory exporter); else as config.tracing says. */
  tracer?: Tracer;
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
  // Buffered, asynchronous writes to stdout: a write per line was a tenth of a request's CPU, and an
  // asynchronous write per line still cost a thread-pool hop each. Lines leave in 4 KiB batches, and
  // at least every 200 ms on a quiet server; what is buffered is written synchronously at exit.
  const destination = new BatchedLogWriter(1, { minBytes: 4096 });
  const flushTimer = setInterval(() => destination.flush(), 200);
  flushTimer.unref();
  process.once('exit', () => destination.flushSync());
  return pino({
    level: config.logLevel,
    base: { service: 'switchboard', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Request logs never carry headers or bodies; these paths guard against a future `log.info({req})`.
    // (Wildcard paths would cost on every line.)
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'], censor: '[redacted]' },
  }, destination);
}

/** Opens the store, applies migrations and builds every service: the composition root proper. */
export async function buildServices(config: Config, logger: Logger, tracer: Tracer = tracerFor(config)): Promise<AppServices> {
  const catalog = Catalog.build({ models: config.models, addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels });
  const database = await openAndMigrate(config, logger);
  const bus: EventBus = config.redisUrl ? new RedisEventBus(config.redisUrl, { prefix: config.redisPrefix, logger }) : new MemoryEventBus();
  // The limiters' one Redis connection, which fails fast and falls back to memory (never a hard
  // dependency); the second of them to close ends it.
  const limiterRedis = config.redisUrl ? new BoundedRedis(config.redisUrl, { commandTimeoutMs: config.redisCommandTimeoutMs }) : undefined;
  const rateLimiter: RateLimiter = limiterRedis ? new RedisRateLimiter(limiterRedis, { prefix: config.redisPrefix }) : new MemoryRateLimiter();
  const tokenBudget: TokenBudget = limiterRedis ? new RedisTokenBudget(limiterRedis, { prefix: config.redisPrefix }) : new MemoryTokenBudget();
  // API keys' concurrent requests: leases in Redis shared by every process, this process's alone without it.
  const concurrencyLimiter: ConcurrencyLimiter = limiterRedis ? new RedisConcurrencyLimiter(limiterRedis, { prefix: config.redisPrefix, logger }) : new MemoryConcurrencyLimiter();
  // Counted in Redis from the first request when it is there; a Redis that is away delays the start by a second at most.
  await limiterRedis?.connected(1_000);
  // Users, keys, sessions and billing reach the store through their ports (issue 31).
  const accountPorts = accountPortsOf(database.db);
  const authenticator = new ApiKeyAuthenticator(accountPorts, bus);
  const apiKeys = new ApiKeysService(accountPorts, bus, (hash) => authenticator.forget(hash));
  const outbound = new GuardedHttpClient({ allowPrivate: config.allowPrivateUrls });
  const publicBaseUrl = () => config.publicBaseUrl;
  const queue = new DbWorkQueue(database, bus, tracer);
  const blobs: BlobStore = config.s3 ? new S3BlobStore(config.s3, publicBaseUrl) : new LocalBlobStore(join(config.dataDir, 'files'), publicBaseUrl);
  // Threads start on first use; the CPU work of every request on user input goes through here.
  const cpu = new ThreadPool<CpuTaskCatalog>({
    script: new URL('./adapters/cpu/cpu-worker.ts', import.meta.url),
    deadlineMs: (kind) => CPU_TASK_DEADLINES_MS[kind as keyof CpuTaskCatalog],
    logger,
  });
  // DATA_DIR is measured when the database or the files live there.
  const storeFull = new StoreFullWatch({ logger, dataDir: config.databaseUrl && config.s3 ? undefined : config.dataDir, remoteDatabase: config.databaseUrl !== undefined });
  const readinessChecks: AppServices['readinessChecks'] = [
    { name: 'database', required: true, check: async () => void (await database.db.selectFrom('schema_migrations').select('version').limit(1).execute()) },
    // A full disk takes the process out of the balancer: nearly every request writes.
    { name: 'disk', required: true, check: () => storeFull.check() },
    { name: 'storage', required: false, check: () => blobs.check() },
  ];
  if (bus instanceof RedisEventBus) readinessChecks.push({ name: 'redis', required: false, check: () => bus.ping() });
  const auth = new AuthService(accountPorts, { bus });
  // The upstreams served now and their health (issue 32): routing asks these on every call.
  // Live upstream keys are sealed with this box; without a key (several processes, no
  // SWITCHBOARD_SECRET_KEY) the rest works and adding a key says what to set.
  const secrets = await loadGatewaySecretBox({ env: { SWITCHBOARD_SECRET_KEY: config.secretKey }, dataDir: config.dataDir, embedded: config.databaseUrl === undefined });
  if (secrets.missing) logger.warn(secrets.missing);
  const upstreams = new UpstreamDirectory({ file: config, live: { store: kyselyUpstreamSettingsStore, uow: kyselyUnitOfWork(database.db), secrets: secrets.box, bus }, logger });
  // Shared by every process through Redis when it is there (issue 32, item 3).
  const upstreamHealth: UpstreamHealthBoard = limiterRedis ? new RedisHealthBoard({ redis: limiterRedis, bus }, { prefix: config.redisPrefix, logger }) : new MemoryHealthBoard();
  // Customer groups' multipliers (issue 33, item 4), followed like the upstreams: every price of an account goes through them.
  const groupPrices = new CustomerGroupDirectory({ store: kyselyCustomerGroupsStore, uow: kyselyUnitOfWork(database.db), bus, logger });
  await Promise.all([upstreamHealth.start(), upstreams.start(), groupPrices.start()]);
  // Calls per entry and key in the last hour, every process's when Redis is there (the Routes page).
  const traffic: TrafficTally = limiterRedis ? new RedisTrafficTally(limiterRedis, { prefix: config.redisPrefix, logger }) : new MemoryTrafficTally();
  const routePlanner = new RoutePlanner(upstreams, upstreamHealth, Math.random, traffic);
  const chatRegistry = createChatProviderRegistry();
  const keyCheckHttp = createKeyCheckClient();
  // Every model, none hidden: what a live route or model setting may name.
  const unhidden = Catalog.build({ models: {}, addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels });
  const mailer: Mailer = config.mail.smtpUrl ? new SmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from }) : new LogMailer(logger);
  const services = {
    config,
    database,
    bus,
    rateLimiter,
    tokenBudget,
    concurrencyLimiter,
    logger,
    metrics: new Metrics(),
    catalog,
    apiKeys,
    authenticator,
    keyDoor: new KeyDoor(accountPorts, rateLimiter, authenticator, concurrencyLimiter, tokenBudget),
    auth,
    signInLinks: new EmailedSignInLinks({ accounts: accountPorts.accounts, uow: accountPorts.uow, auth, mailer, limiter: rateLimiter, limits: { perAddress: config.limits.signInLinksPerAddress, perMailbox: config.limits.signInLinksPerMailbox }, publicBaseUrl, logger }),
    sso: new SsoSignIn({ providers: config.sso, accounts: accountPorts.accounts, oidc: kyselyOidcStore, uow: accountPorts.uow, sessions: auth, limiter: rateLimiter, publicBaseUrl }),
    mailer,
    organizations: new OrganizationsService({ organizations: new KyselyOrganizationStore(), accounts: accountPorts.accounts, uow: accountPorts.uow, apiKeys, mailer, publicBaseUrl, logger }),
    providerHealth: new ProviderHealth(kyselyAttemptHealthStore, kyselyUnitOfWork(database.db)),
    stats: { store: new KyselyStatsStore(database.db), uow: kyselyUnitOfWork(database.db) },
    upstreamAnomalies: new DbUpstreamAnomalyLog(database.db),
    routeReport: new RouteReportService(new DbRouteReportStore(database.db, database.sqliteFile)),
    estimates: new EstimateService(catalog, new GuardedMediaMeasurer(outbound), groupPrices),
    groupPrices,
    customerGroups: new CustomerGroupsService({
      store: kyselyCustomerGroupsStore,
      uow: kyselyUnitOfWork(database.db),
      directory: groupPrices,
      isModel: (id) => unhidden.get(id) !== undefined || unhidden.embedding(id) !== undefined,
    }),
    blobs,
    queue,
    tracer,
    mediaProviders: new MediaProviderPool(upstreams, outbound),
    upstreams,
    upstreamHealth,
    routePlanner,
    upstreamSettings: new UpstreamSettingsService({
      store: kyselyUpstreamSettingsStore,
      uow: kyselyUnitOfWork(database.db),
      secrets: secrets.box,
      directory: upstreams,
      board: upstreamHealth,
      isKnownType: (type) => chatRegistry.has(type) || isMediaProviderType(type),
      knownTypes: () => [...new Set([...chatRegistry.types(), ...mediaProviderTypes()])].sort(),
      isModel: (id) => unhidden.get(id) !== undefined || unhidden.embedding(id) !== undefined,
      checkModelSettings: (models) => void Catalog.build({ models, addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels }),
    }),
    providerTests: new ProviderTestService({ provider: (name) => upstreams.provider(name), board: upstreamHealth, check: (target, signal) => checkProviderKey(target, { http: keyCheckHttp }, signal), close: () => keyCheckHttp.close() }),
    mediaRoutes: liveMediaRoutes(upstreams, routePlanner),
    webhookSecrets: new WebhookSecretService(kyselyWebhookPorts(database.db)),
    budgetAlerts: new BudgetAlertsService({
      store: new KyselyBudgetAlertStore(),
      accounts: accountPorts.accounts,
      organizations: new KyselyOrganizationStore(),
      uow: kyselyUnitOfWork(database.db),
      outbox: { store: kyselyWebhookStore, queue },
      mailer,
      urlRules: { allowPrivateUrls: config.allowPrivateUrls, policy: config.webhooks },
      publicBaseUrl,
      checkIntervalMs: config.budgetAlertCheckMs,
      logger,
    }),
    taskStatuses: new TaskStatusCache(),
    taskWatch: new TaskWatch(bus),
    // One writer on SQLite; on PostgreSQL two batches in flight measured the same as eight.
    writes: new TransactionBatcher(database.db, { concurrency: database.dialect === 'postgres' ? 2 : 1 }),
    outbound,
    cpu,
    readinessChecks,
    storeFull,
    billing: buildBillingServices({ billing: accountPorts.billing, accounts: accountPorts.accounts, ledger: accountPorts.ledger, uow: accountPorts.uow, provider: buildPaymentProvider(config.payments), config: config.payments, publicBaseUrl, logger, limiter: rateLimiter, limits: config.limits }),
  } satisfies Omit<AppServices, 'taskRunner' | 'taskCancels' | 'chat' | 'agent' | 'storage' | keyof TextExtras>;
  // One calendar for retention, attachments and storage: tests move it forward.
  const clock = new AgentClock();
  services.metrics.sampleStore(async () => {
    const at = Date.now();
    const [queue, holds] = await Promise.all([sampleQueue(database.db, at), sampleHolds(database.db)]);
    return { queue, holds, at };
  });
  const taskRunner = new TaskRunner({
    ...kyselyTaskPorts(database.db),
    queue: services.queue,
    catalog,
    providers: (name, keyId) => services.mediaProviders.get(name, keyId),
    keys: routePlanner,
    results: new ResultStore(blobs, outbound, config.maxResultBytes),
    onTerminal: (tx, task) => terminalHook(full)(tx, task),
    callbackBaseUrl: () => config.publicBaseUrl,
    fileRetentionMs: config.fileRetentionMs,
    calendarNow: clock.now,
    logger,
    metrics: services.metrics,
    timings: (provider) => ({ ...DEFAULT_TIMINGS, ...timingOverrides(upstreams.provider(provider)?.options) }),
    tracer,
    anomalies: services.upstreamAnomalies,
  });
  const chat = new ChatService({
    store: kyselyChatStore,
    uow: kyselyUnitOfWork(database.db),
    catalog,
    router: new ChatRouter(upstreams, chatRegistry, routePlanner, (modelId, entry) => {
      const model = catalog.chat(modelId);
      return model !== undefined && chatEntryAtLoss(entry, model);
    }),
    maxOutputTokens: config.chat.maxOutputTokens,
    upstreamAfterLeaveMs: config.chat.upstreamAfterLeaveMs,
    metrics: services.metrics,
    tracer,
    health: services.providerHealth,
    logger,
    ledger: createChatLedger(database, logger),
    anomalies: services.upstreamAnomalies,
    cpu,
    tokens: services.keyDoor,
    groups: groupPrices,
    urlPolicy: () => ({ allowPrivate: config.allowPrivateUrls, ownFilesPrefix: `${config.publicBaseUrl.replace(/\/+$/u, '')}/files/` }),
  });
  const routeRefusal: RouteRefusalCheck = (route, media) => services.mediaProviders.get(route.provider)?.refusal?.(media);
  const agent = buildAgentServices({
    clock,
    config,
    library: { store: new KyselyAgentLibraryStore(), views: new KyselyAgentViews() },
    agentStore: new KyselyAgentStore(),
    uow: kyselyUnitOfWork(database.db),
    ledger: kyselyLedgerBook,
    tasks: kyselyTaskStore,
    webhookStore: kyselyWebhookStore,
    bus, queue: services.queue, catalog, chat, estimates: services.estimates, blobs, cpu, logger, metrics: services.metrics, publicBaseUrl, routeRefusal, rateLimiter, keyDoor: services.keyDoor, mediaRoutes: services.mediaRoutes });
  const storage = buildStorageServices({ store: new KyselyStorageStore(), uow: kyselyUnitOfWork(database.db), ledger: kyselyLedgerBook, blobs, queue: services.queue, now: agent.clock.now, logger, faults: agent.engine.faults, ...(config.storagePlans ? { plans: config.storagePlans } : {}) });
  const textExtras = buildTextExtras({ upstreams, catalog, chat, health: services.providerHealth, metrics: services.metrics, logger, cpu, tokens: services.keyDoor });
  // A provider changed live: its adapters are built again from the new setting (calls under way keep theirs).
  // Model settings changed live (visibility, prices): the catalog every service holds serves the new
  // version at once; requests priced before keep what they were quoted (catalog.ts, `adopt`).
  const adoptModelSettings = (): void => {
    catalog.adopt(Catalog.build({ models: upstreams.modelOverrides(), addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels }));
  };
  upstreams.onChange((change) => {
    chat.router.forgetProviders(change.providers);
    services.mediaProviders.forgetProviders(change.providers);
    if (change.models.size > 0) adoptModelSettings();
  });
  if (upstreams.modelSettings().some((m) => m.source === 'live')) {
    try {
      adoptModelSettings();
    } catch (error) {
      // A stored setting this version refuses (a model renamed by an upgrade): the file's serve until it is fixed.
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'the live model settings could not be applied; serving the config file\'s');
    }
  }
  // Recomputed whenever a route, a provider or the catalog changes live; the catalog's answers read it.
  const noLiveRoute = new Set<string>();
  const refreshNoLiveRoute = (): void => {
    const dead = modelsWithoutLiveRoute(catalog.mediaModels(), Object.fromEntries(upstreams.allTargets()), routeRefusal);
    noLiveRoute.clear();
    for (const model of dead) noLiveRoute.add(model);
  };
  refreshNoLiveRoute();
  upstreams.onChange(refreshNoLiveRoute);
  if (noLiveRoute.size > 0) logger.warn({ models: [...noLiveRoute] }, 'media models without a live route (every route refuses them): the catalog tags them no-live-route');
  const taskCancels = new TaskCanceller({
    ...kyselyTaskPorts(database.db),
    providers: (name, keyId) => services.mediaProviders.get(name, keyId),
    jobOf: (task, attempt, signal) => taskRunner.mediaJob(task, attempt, signal),
    onTerminal: (tx, task) => terminalHook(full)(tx, task),
    afterCancel: (task) => services.taskWatch.announce(task.id),
    metrics: services.metrics,
  });
  const full: AppServices = { ...services, taskRunner, taskCancels, chat, agent, storage, noLiveRoute, ...textExtras };
  return full;
}

/**
 * What runs when a task reaches a terminal status, inside the transaction that moved it: the
 * completion webhook is written with the same body GET /task/status returns. No explicit wake-up is
 * needed: the worker that ran the step claims due jobs right after it, and the delivery is due now.
 */
export function terminalHook(services: AppServices): TerminalHook {
  return async (tx, task) => {
    services.taskStatuses.forget(task.id);
    if (task.agent_run_id) await wakeRunForTask(services.agent.engine.store, tx, services.queue, task.agent_run_id, Date.now());
    if (!task.webhook_url) return;
    await enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: services.queue }, {
      userId: task.user_id,
      taskId: task.id,
      eventType: `task.${task.status}`,
      url: task.webhook_url,
      body: { code: 200, data: presentTaskStatus(task, services.blobs) },
      now: Date.now(),
    });
  };
}

/** The worker side: claims jobs (task steps, webhook deliveries, the retention sweep) and runs them. */
export async function startWorkers(services: AppServices): Promise<WorkerPool> {
  const { config, database, logger } = services;
  const onTerminal = terminalHook(services);
  const runner = services.taskRunner;
  const webhookCaps = webhookLaneCaps(config.webhookSending.slots);
  const sweep = createRetentionSweeper({ ...kyselyTaskPorts(database.db), blobs: services.blobs, onTerminal, logger, intervalMs: 60_000, now: services.agent.clock.now });
  const pool = new WorkerPool(
    services.queue,
    bindJobCatalog(jobHandlers(services, runner, sweep), logger),
    {
      owner: newId(`wrk_${hostname().replace(/[^a-z0-9]/gi, '').slice(0, 12)}_${process.pid}`),
      leaseMs: config.worker.leaseMs,
      concurrency: config.worker.concurrency,
      // Agent runs spend most of their time waiting on a model: as many as the process runs jobs.
      queueConcurrency: (queue) => {
        if (queue === JOB_QUEUES.agent) return config.worker.concurrency;
        if (queue === JOB_QUEUES.webhooks) return config.webhookSending.slots;
        return services.upstreams.provider(queue)?.concurrency ?? 64;
      },
      // Webhook slots are shared per user and per destination origin (issue 29, item 9).
      laneCaps: (queue) => (queue === JOB_QUEUES.webhooks ? webhookCaps : undefined),
      queues: [...services.upstreams.providers().map((p) => p.name), ...Object.values(JOB_QUEUES)],
      logger,
      tracer: services.tracer,
    },
  );
  const now = Date.now();
  await database.db.transaction().execute(async (tx) => {
    for (const job of recurringJobs(now)) await services.queue.enqueue(tx, job);
  });
  await services.agent.aborts.start();
  await pool.start();
  return pool;
}

/** The handler of every job kind (its poison rule and time-out are the catalog's: src/domain/jobs/job-catalog.ts). */
function jobHandlers(services: AppServices, runner: TaskRunner, sweep: JobHandler): JobHandlers {
  const { config, database, logger } = services;
  const db = database.db;
  const library = { store: new KyselyAgentLibraryStore(), uow: kyselyUnitOfWork(db) };
  return {
    // Every step's change has committed when it returns: its readers (Prefer: wait, task events) are told.
    task: {
      handler: (job, signal, context) => runner.handle(job, signal, context).finally(() => void services.taskWatch.announce(job.refId)),
      giveUp: (job) => runner.giveUp(job).finally(() => void services.taskWatch.announce(job.refId)),
    },
    agent_run: { handler: createRunJobHandler(services.agent.engine), giveUp: createRunGiveUp(services.agent.engine) },
    webhook: {
      handler: createWebhookJobHandler({
        ...kyselyWebhookPorts(db),
        client: services.outbound,
        logger,
        ports: config.webhooks.ports,
        timeoutMs: config.webhookSending.timeoutMs,
        targets: services.queue,
        perUser: { limiter: services.rateLimiter, limit: config.limits.webhookDeliveriesPerUser },
        secrets: async (delivery) =>
          delivery.destinationId === null ? services.webhookSecrets.signingSecrets(delivery.userId) : services.agent.webhooks.signingSecrets(delivery.destinationId),
        onAttempt: async (delivery, outcome, statusCode, now) => {
          if (delivery.destinationId !== null) await services.agent.webhooks.recordAttempt(delivery.destinationId, outcome, statusCode, now);
        },
      }),
      giveUp: createWebhookGiveUp(kyselyWebhookPorts(db)),
    },
    storage_copy: { handler: createStorageCopyHandler(services.storage.files), giveUp: createStorageCopyGiveUp(services.storage.files) },
    sweep,
    chat_settle: createChatSettleHandler({ store: kyselyChatStore, uow: kyselyUnitOfWork(db), book: kyselyLedgerBook, logger, metrics: services.metrics }),
    agent_capability_probe: createCapabilityProbeHandler({ capabilities: services.agent.capabilities, logger, intervalMs: config.agent.capabilityProbeIntervalMs }),
    agent_event_prune: createEventPruneHandler({ ...library, logger, retentionMs: config.agent.eventRetentionMs }),
    agent_attachment_cleanup: createAttachmentCleanupHandler({ attachments: services.agent.attachments, logger }),
    agent_idempotency_prune: createIdempotencyPruneHandler({ ...library, logger, now: services.agent.clock.now }),
    storage_billing: createStorageBillingHandler({ billing: services.storage.billing, logger }),
    budget_alerts: createBudgetAlertHandler({ alerts: services.budgetAlerts, logger, intervalMs: config.budgetAlertCheckMs }),
  };
}

/** The tracer config.tracing asks for: none (the no-op) unless an OTEL_* variable names an exporter. */
function tracerFor(config: Config): Tracer {
  const { exporter, protocol, serviceName, recordContent } = config.tracing;
  return exporter === 'none' ? NOOP_TRACER : new OtelTracer({ exporter, protocol, serviceName, recordContent, role: config.role });
}

function timingOverrides(options: Record<string, unknown> | undefined): Partial<typeof DEFAULT_TIMINGS> {
  const out: Partial<typeof DEFAULT_TIMINGS> = {};
  for (const key of ['maxJobMs', 'reconcileWindowMs', 'maxPollIntervalMs'] as const) {
    const v = options?.[key];
    if (typeof v === 'number' && v > 0) out[key] = v;
  }
  return out;
}

/** How long open chat streams get to finish when the gateway closes (then they are cancelled and settled). */
const CHAT_CLOSE_GRACE_MS = 10_000;

/** Starts what the role asks for: HTTP (api), the workers (worker), or both (all). */
/**
 * The store, opened and migrated. The embedded one first needs room under DATA_DIR: a start on a
 * full disk stops with a sentence that names the directory and its free space (issue 29), not with
 * SQLite's "SQL logic error" half-way through a migration.
 */
async function openAndMigrate(config: Config, logger: Logger): Promise<DatabaseHandle> {
  const embedded = config.databaseUrl === undefined;
  if (embedded) {
    await makePrivateDir(config.dataDir);
    await assertRoomToStart(config.dataDir);
  }
  let database: DatabaseHandle | undefined;
  try {
    database = openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      onConnectionError: (error) => logger.warn({ err: error }, 'a database connection was lost; the pool opens a new one when the server answers'),
    });
    await migrate(database);
    return database;
  } catch (error) {
    await database?.close().catch(() => {});
    if (embedded && isStoreFull(error)) throw dataDirFullError(config.dataDir, await freeBytes(config.dataDir));
    throw error;
  }
}

export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config);
  const services = await buildServices(config, logger, options.tracer);
  // Its first compile builds tables (10 to 40 ms): here, not on the first request with a pattern.
  warmUpPatternEngine();
  await services.authenticator.start();

  const demo = config.demoUser ? await ensureDemoUser(accountPortsOf(services.database.db), services.apiKeys) : undefined;

  let http: FastifyInstance | undefined;
  let url: string | undefined;
  if (config.role !== 'worker') {
    http = buildHttpApp(services).app;
    url = await http.listen({ port: options.listenPort ?? config.port, host: config.host });
    if (config.host === '0.0.0.0' || config.host === '::') url = url.replace(/\/\/[^:/]+/, '//127.0.0.1');
    if (!config.publicBaseUrlIsExplicit) {
      config.publicBaseUrl = url;
      await recordServedBaseUrl(config.dataDir, url).catch((error: unknown) => logger.warn({ err: error }, 'could not record the served address for the CLI'));
    }
  }
  if (demo) {
    // A day to open it; it works once (docs/decisions.md "Demo sign-in link").
    const signInUrl = url ? `${config.publicBaseUrl}/api/v1/auth/link?token=${await services.auth.createSignInLink(demo.userId, 24 * 3_600_000)}` : undefined;
    options.onDemoKey?.(demo.key, signInUrl);
  }
  // After listening: callback URLs given to upstreams need the bound address.
  const workers = config.role !== 'api' ? await startWorkers(services) : undefined;

  let closed = false;
  return {
    services,
    http,
    url,
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests first (in-flight ones finish), then the background parts, then storage.
      // Open chat streams get a grace period, then are cancelled and settled for what they used. The
      // chat service keeps taking requests while HTTP still admits them (one last request on an open
      // connection, answered with Connection: close): refusing it would fail a client mid-restart.
      const httpClosed = http?.close() ?? Promise.resolve();
      const graceEnds = Date.now() + CHAT_CLOSE_GRACE_MS;
      await Promise.race([httpClosed, new Promise((resolve) => setTimeout(resolve, CHAT_CLOSE_GRACE_MS).unref())]);
      await services.chat.close(Math.max(0, graceEnds - Date.now()));
      await httpClosed;
      await workers?.stop();
      await services.agent.aborts.stop();
      await services.agent.hub.close();
      await services.chat.router.close();
      await services.embeddings.close();
      await services.authenticator.stop();
      // The directory and the health board listen on the bus (and the board shares the limiters' Redis).
      await services.upstreams.close();
      await services.groupPrices.close();
      await services.upstreamHealth.close();
      await services.routePlanner.traffic?.close();
      await services.bus.close();
      await services.signInLinks.settled();
      await services.organizations.settled();
      await services.mailer.close();
      await services.rateLimiter.close();
      await services.tokenBudget.close();
      await services.concurrencyLimiter.close();
      if (services.blobs instanceof S3BlobStore) services.blobs.close();
      await services.mediaProviders.close();
      await services.providerTests.close();
      await services.outbound.close();
      await services.cpu.close();
      await services.database.close();
      await services.tracer.shutdown();
    },
  };
}
