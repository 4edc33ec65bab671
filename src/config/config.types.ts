import type { RouteCost } from '../domain/routing/route-cost.ts';
import type { TracingConfig } from './tracing-config.ts';
import type { SsoProviderConfig } from './oidc-config.ts';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from '../domain/catalog/catalog-overrides.ts';
import type { StoragePlan } from '../domain/storage/storage-plans.ts';
/** Everything the process is configured with, parsed once at start (see load-config.ts). */
export type Role = 'api' | 'worker' | 'all';

export interface S3Config {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Public base URL of the bucket; when absent the gateway serves the objects itself. */
  publicUrl: string | undefined;
}

export interface ProviderConfig {
  /** Upstream API style: openai, anthropic, kie, fal, replicate, switchboard, google, local, … */
  type: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Milliseconds for one upstream HTTP call. */
  timeoutMs: number;
  /** At most this many jobs of this provider run at once in one worker process. */
  concurrency: number;
  /** Style-specific settings (latency and failure rate of `local`, webhook secrets, …). */
  options: Record<string, unknown>;
}

export type { RouteCost };

export interface RouteTarget {
  provider: string;
  /** The upstream's name for the model; defaults to our id. */
  model: string;
  /** Lower is tried first (a non-negative integer); absent: the entry's position in the list (issue 32). */
  priority?: number;
  /** The share of first picks among entries of one priority (a positive finite number); absent: 1. */
  weight?: number;
  /** What the upstream charges us here (issue 32, item 6), priced like the catalog: decimal USD strings. */
  cost?: RouteCost;
  /** True: the router may fail over to this entry even when it costs more than the price. */
  allowLoss?: boolean;
}


/** A storefront (SPEC: agent settings and history are isolated per storefront), chosen by the request's host. */
export interface StorefrontConfig {
  id: string;
  name: string;
  /** Host names (lower case, without port) that select it; the default storefront takes every other host. */
  hosts: string[];
  /** When false, existing history, downloads and run controls stay available but no new run starts. */
  agentRuns: boolean;
}

export interface AgentConfig {
  /** Output tokens an orchestrator call may use (its hold is priced with them). */
  maxOutputTokens: number;
  /** Steps a run may take before it fails (a guard against loops). */
  maxSteps: number;
  /** How often each text route's capabilities are verified again, in milliseconds. */
  capabilityProbeIntervalMs: number;
  /** How long agent events are kept for replay, in milliseconds. */
  eventRetentionMs: number;
}

/** Stripe Checkout for top-ups (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE). */
export interface StripeConfig {
  secretKey: string;
  /** The webhook endpoint's signing secret, `whsec_…`. */
  webhookSecret: string;
  /** `https://api.stripe.com` unless a test points it at a fake. */
  apiBase: string;
}

export interface PaymentsConfig {
  /** Undefined: top-ups are disabled (redeem codes still work). */
  stripe: StripeConfig | undefined;
  /** Bounds of one top-up, in USD cents. */
  minTopupCents: number;
  maxTopupCents: number;
}

/** One rate limit: at most `max` events per `windowMs`. */
export interface RateLimitSetting {
  max: number;
  windowMs: number;
}

/** The `limits` section: abuse limits, each with a default (limits-config.ts). */
export interface AbuseLimits {
  /** Redeem attempts per API key (a dashboard session counts as one key). */
  redeemPerKey: RateLimitSetting;
  /** Redeem attempts per account, across its keys and sessions. */
  redeemPerAccount: RateLimitSetting;
  /** Failed admin bearer checks per client address (IPv6 grouped by /64). */
  adminFailuresPerAddress: RateLimitSetting;
  /** Checkout sessions created per user. */
  checkoutsPerUser: RateLimitSetting;
  /** Webhook delivery attempts per user; deliveries over it wait for the next window, none is dropped. */
  webhookDeliveriesPerUser: RateLimitSetting;
  /** Agent webhook test events and redeliveries sent per user (POST /agent/webhooks/{id}/test, …/redeliver), one allowance; over it: 429. */
  webhookTestsPerUser: RateLimitSetting;
  /** Agent event streams one user may hold open at once in one API process. */
  eventStreamsPerUser: number;
  /** Emailed sign-in links asked for per client address (IPv6 grouped by /64). */
  signInLinksPerAddress: RateLimitSetting;
  /** Emailed sign-in links per mailbox, whoever asks. */
  signInLinksPerMailbox: RateLimitSetting;
}

/** Where webhooks (media `webhook`, agent destinations) may point. */
export interface WebhookPolicy {
  /** Ports a webhook URL may name (the scheme's default counts as named); `any` lifts the rule. */
  ports: number[] | 'any';
  /** Agent destinations may be plain http (development and tests). */
  allowHttp: boolean;
}

/** How webhooks are sent (docs/webhooks-and-files.md, "Fair slots"). */
export interface WebhookSending {
  /** SWITCHBOARD_WEBHOOK_CONCURRENCY: attempts one worker process has in flight at once (64); the per-user and per-origin caps follow from it. */
  slots: number;
  /** SWITCHBOARD_WEBHOOK_TIMEOUT_MS: the whole exchange of one attempt (10 s). */
  timeoutMs: number;
}

export interface MailConfig {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; undefined: messages are written to the log. */
  smtpUrl: string | undefined;
  /** The From header; defaults to `Switchboard <no-reply@HOST>` with the host of PUBLIC_BASE_URL. */
  from: string;
}

export interface Config {
  port: number;
  host: string;
  role: Role;
  dataDir: string;
  /**
   * Base URL clients reach us at; used in file URLs and upstream callback URLs. When PUBLIC_BASE_URL
   * is unset it is the address the HTTP server bound (set after listening).
   */
  publicBaseUrl: string;
  publicBaseUrlIsExplicit: boolean;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share a Redis. */
  redisPrefix: string;
  /** SWITCHBOARD_SECRET_KEY: seals live upstream keys (load-secret-box.ts reads it); never logged. */
  secretKey: string | undefined;
  /** SWITCHBOARD_REDIS_TIMEOUT_MS: how long a rate or concurrency limit waits for Redis before counting in memory. */
  redisCommandTimeoutMs: number;
  s3: S3Config | undefined;
  /** Outgoing mail (sign-in links): SMTP_URL and MAIL_FROM; without SMTP_URL messages go to the log. */
  mail: MailConfig;
  /** At least 32 characters when set (ADMIN_TOKEN). */
  adminToken: string | undefined;
  /** SWITCHBOARD_ALLOW_PRIVATE_URLS: private and loopback addresses become reachable; nothing else changes. */
  allowPrivateUrls: boolean;
  webhooks: WebhookPolicy;
  webhookSending: WebhookSending;
  /** SWITCHBOARD_BUDGET_ALERT_CHECK_MS: how often the workers check accounts' budget alerts (issue 33, item 7). */
  budgetAlertCheckMs: number;
  limits: AbuseLimits;
  /** Reverse proxies whose X-Forwarded-* headers are believed (TRUST_PROXY); false: none. */
  trustProxy: string[] | false;
  /** Bearer token for /metrics (METRICS_TOKEN); without one, /metrics answers loopback clients only. */
  metricsToken: string | undefined;
  /** Time to receive a whole request, headers and body (a trickled body is cut off). */
  requestTimeoutMs: number;
  /** Open connections the server accepts at once. */
  maxConnections: number;
  /** Open connections one client address (IPv4, or an IPv6 /64) may hold at once; the trusted proxies are not capped. */
  maxConnectionsPerAddress: number;
  logLevel: string;
  /** Create the demo user with USD 10 on the first start and print its key. */
  demoUser: boolean;
  /** How long generated files are kept, in milliseconds (3 days). */
  fileRetentionMs: number;
  /** Largest upstream result file we copy, in bytes. */
  maxResultBytes: number;
  /** OpenTelemetry tracing (tracing-config.ts): off by default. */
  tracing: TracingConfig;
  chat: {
    /** Cap on max_tokens / max_completion_tokens, and the default when a request gives neither. */
    maxOutputTokens: number;
    /**
     * How long the upstream call of a client that went away is still read, so that what it billed is
     * charged from its own usage (docs/decisions.md, "A client that leaves pays for what the upstream
     * billed"); then it is cancelled and the estimate charged. 5 minutes by default.
     */
    upstreamAfterLeaveMs: number;
  };
  worker: {
    /** Jobs one worker process runs at once, across providers. */
    concurrency: number;
    /** Lease length in milliseconds; extended while a job runs. */
    leaseMs: number;
  };
  providers: Record<string, ProviderConfig>;
  routes: Record<string, RouteTarget[]>;
  /** Always holds the default storefront (`default` unless the file names it) first. */
  storefronts: StorefrontConfig[];
  agent: AgentConfig;
  /** Paid storage plans on offer (`storagePlans` in the config file); undefined: the built-in three. */
  storagePlans: StoragePlan[] | undefined;
  /**
   * Test-only crash points (SWITCHBOARD_FAULT_POINTS, comma-separated): the process kills itself
   * with SIGKILL when it reaches one (`name:throw`: throws there instead). Empty in production.
   */
  faultPoints: string[];
  models: Record<string, ModelOverride>;
  addedChatModels: AddedChatModel[];
  addedMediaModels: AddedMediaModel[];
  payments: PaymentsConfig;
  /** Single sign-on providers on the sign-in page (oidc-config.ts): SWITCHBOARD_OIDC_<NAME>_* and the file's `oidc.providers`. */
  sso: SsoProviderConfig[];
}
