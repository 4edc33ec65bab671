import type { UpstreamAnomalyLog } from '../ports/upstream-anomalies.port.ts';
import type { MediaRouteSource } from '../services/generation/task-routes.ts';
import type { MediaProviderPool } from '../services/upstreams/media-provider-pool.ts';
import type { UpstreamDirectory } from '../services/upstreams/upstream-directory.ts';
import type { RoutePlanner } from '../services/upstreams/route-planner.ts';
import type { UpstreamSettingsService } from '../services/upstreams/upstream-settings.service.ts';
import type { CustomerGroupDirectory } from '../services/pricing/customer-group-directory.ts';
import type { CustomerGroupsService } from '../services/pricing/customer-groups.service.ts';
import type { ProviderTestService } from '../services/upstreams/provider-test.service.ts';
import type { RouteReportService } from '../services/upstreams/route-report.service.ts';
import type { UpstreamHealthBoard } from '../ports/upstream-health.port.ts';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/open-database.ts';
import type { Metrics } from '../adapters/metrics/metrics.ts';
import type { Tracer } from '../ports/tracer.port.ts';
import type { Config } from '../config/config.types.ts';
import type { Catalog } from '../domain/catalog/catalog.ts';
import type { TransactionBatcher } from '../adapters/db/transaction-batcher.ts';
import type { GuardedHttpClient } from '../adapters/outbound/guarded-http-client.ts';
import type { BlobStore } from '../ports/blob-store.port.ts';
import type { CpuPool } from '../ports/cpu-pool.port.ts';
import type { EventBus } from '../ports/event-bus.port.ts';
import type { ConcurrencyLimiter } from '../ports/concurrency-limiter.port.ts';
import type { RateLimiter } from '../ports/rate-limiter.port.ts';
import type { TokenBudget } from '../ports/token-budget.port.ts';
import type { WorkQueue } from '../ports/work-queue.port.ts';
import type { AgentServices } from '../services/agent/agent.module.ts';
import type { StorageServices } from '../services/storage/storage.module.ts';
import type { StatsPorts } from '../services/stats/stats-ports.ts';
import type { ApiKeyAuthenticator } from '../services/accounts/api-key-authenticator.ts';
import type { KeyDoor } from '../services/accounts/key-door.ts';
import type { ApiKeysService } from '../services/accounts/api-keys.service.ts';
import type { BudgetAlertsService } from '../services/accounts/budget-alerts.service.ts';
import type { OrganizationsService } from '../services/accounts/organizations.service.ts';
import type { BillingServices } from '../services/billing/billing.module.ts';
import type { AuthService } from '../services/auth/auth.service.ts';
import type { EmailedSignInLinks } from '../services/auth/emailed-sign-in-links.ts';
import type { SsoSignIn } from '../services/auth/sso/sso-sign-in.service.ts';
import type { Mailer } from '../ports/mailer.port.ts';
import type { ChatService } from '../services/chat/chat.service.ts';
import type { CountTokensService } from '../services/text-extras/count-tokens.service.ts';
import type { EmbeddingsService } from '../services/text-extras/embeddings.service.ts';
import type { EstimateService } from '../services/generation/estimate.service.ts';
import type { ProviderHealth } from '../services/upstreams/provider-health.ts';
import type { TaskRunner } from '../services/generation/task-runner.ts';
import type { TaskStatusCache } from '../services/generation/task-status-cache.ts';
import type { TaskCanceller } from '../services/generation/task-cancel.service.ts';
import type { TaskWatch } from '../services/generation/task-watch.ts';
import type { WebhookSecretService } from '../services/webhooks/webhook-secret.service.ts';
import type { StoreFullWatch } from '../adapters/resilience/store-full-watch.ts';

/**
 * Everything the composition root (main.ts) builds once and hands down. The HTTP layer and the
 * workers receive this; nothing else opens connections or reads configuration.
 */
export interface AppServices {
  config: Config;
  database: DatabaseHandle;
  bus: EventBus;
  /** Abuse limits (redeem guesses, admin failures, checkouts, webhook deliveries): memory, or Redis with a memory fallback. */
  rateLimiter: RateLimiter;
  /** Tokens per minute of API keys (issue 33, item 6). */
  tokenBudget: TokenBudget;
  /** API keys' concurrent requests: memory, or Redis leases with a memory fallback. */
  concurrencyLimiter: ConcurrencyLimiter;
  logger: Logger;
  metrics: Metrics;
  /** Spans (off: the no-op tracer); tracer.port.ts. */
  tracer: Tracer;
  catalog: Catalog;
  apiKeys: ApiKeysService;
  authenticator: ApiKeyAuthenticator;
  /** A key's model allow-list, concurrency and requests per minute, at the door of chat and media. */
  keyDoor: KeyDoor;
  /** Dashboard accounts: sign-up, sign-in, sessions, password changes. */
  auth: AuthService;
  /** "Email me a sign-in link" (the way back in without the operator). */
  signInLinks: EmailedSignInLinks;
  /** Organizations: shared accounts, their members, roles and invitations (issue 33). */
  organizations: OrganizationsService;
  budgetAlerts: BudgetAlertsService;
  /** Single sign-on with the configured OpenID Connect providers and GitHub (issue 33, item 5). */
  sso: SsoSignIn;
  /** Outgoing mail: SMTP, or the log without SMTP_URL. */
  mailer: Mailer;
  providerHealth: ProviderHealth;
  /** Upstream answers not taken as sent (usage corrected before billing, callbacks naming another job): GET /admin/v1/upstream-anomalies. */
  upstreamAnomalies: UpstreamAnomalyLog;
  estimates: EstimateService;
  blobs: BlobStore;
  queue: WorkQueue;
  /** Media providers by configured name (`local` always among them). */
  mediaProviders: MediaProviderPool;
  /** The upstreams served now: the config file with the live settings laid over it (issue 32). */
  upstreams: UpstreamDirectory;
  /** Health-aware choice of route entries and keys, over the health board. */
  routePlanner: RoutePlanner;
  upstreamHealth: UpstreamHealthBoard;
  /** Live changes to providers, keys, routes and model settings (the admin API). */
  upstreamSettings: UpstreamSettingsService;
  /** The customer groups every price of an account is multiplied by (issue 33, item 4): in memory, no store access per request. */
  groupPrices: CustomerGroupDirectory;
  /** The admin API's changes to customer groups and assignments. */
  customerGroups: CustomerGroupsService;
  /** POST /admin/v1/providers/{name}/test: each key's cheapest real call. */
  providerTests: ProviderTestService;
  /** Revenue, upstream cost and margin per day, model and route (issue 32, item 6). */
  routeReport: RouteReportService;
  /** The media routes served now, for creates. */
  mediaRoutes: MediaRouteSource;
  /** Media models without a live route (every route refuses with scope 'route'): the catalog tags them (live-routes.ts). */
  noLiveRoute?: ReadonlySet<string>;
  webhookSecrets: WebhookSecretService;
  /** Advances media tasks (used by workers) and checks late outcomes (used by the callback route). */
  taskRunner: TaskRunner;
  /** Announces each committed change of a task and lets readers wait for one (Prefer: wait, task events). */
  taskWatch: TaskWatch;
  /** POST /task/{taskId}/cancel (issue 34, item 1). */
  taskCancels: TaskCanceller;
  /** Status responses of ended tasks (GET /task/status is polled hard). */
  taskStatuses: TaskStatusCache;
  /** Group commit of the hot write paths (create, chat hold and settlement). */
  writes: TransactionBatcher;
  /** Text generation: routing, failover, holds and settlements (both wire protocols). */
  chat: ChatService;
  /** Embeddings and count_tokens (issue 20): the chat routes and billing, their own upstream calls. */
  embeddings: EmbeddingsService;
  countTokens: CountTokensService;
  /** The agent: conversations, runs, events, webhooks, and the run engine's dependencies. */
  agent: AgentServices;
  /** Paid storage for agent files: plans, subscriptions, retained copies, the billing calendar. */
  storage: StorageServices;
  /** Usage statistics, the generation list and the CSV export read through these. */
  stats: StatsPorts;
  /** Top-ups, redeem codes and the user's ledger page. */
  billing: BillingServices;
  /** The decision-9 client for user-supplied URLs (webhooks, media to probe). */
  outbound: GuardedHttpClient;
  /** Worker threads for CPU work on user input (large bodies, uploaded files, masks), off the event loop. */
  cpu: CpuPool;
  /**
   * Checks of outside dependencies for /readyz (database first). Only a `required` one failing makes
   * the process unready: the API serves without Redis (hints) and without the file store (workers
   * wait for it), so a load balancer must not take the tier out for them.
   */
  readinessChecks: Array<{ name: string; required: boolean; check: () => Promise<void> }>;
  /** Whether the store's disk is full: told by the error handler, asked by readiness (store-full-watch.ts). */
  storeFull: StoreFullWatch;
}
