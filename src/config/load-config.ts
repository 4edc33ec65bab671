import { readTracingConfig } from './tracing-config.ts';
import type { StoragePlan } from '../domain/storage/storage-plans.ts';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../domain/config-error.ts';
import { ConfigReader, checkBounds } from './config-reader.ts';
import { parsePaymentsConfig } from './payments-config.ts';
import { parseSsoProviders } from './oidc-config.ts';
import { PROVIDER_NAME, parseModelOverride, parsePricing, parseProviderFields, parseRouteList, usdString } from './upstream-config.ts';
import { parseAdminToken, parseLimits, parseWebhookPolicy } from './limits-config.ts';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from '../domain/catalog/catalog-overrides.ts';
import type {
  AgentConfig,
  Config,
  MailConfig,
  ProviderConfig,
  Role,
  RouteTarget,
  S3Config,
  StorefrontConfig,
} from './config.types.ts';

type Env = Record<string, string | undefined>;

const HOUR_MS = 60 * 60 * 1000;
const ROLES: readonly Role[] = ['api', 'worker', 'all'];

/**
 * Reads the whole configuration once: environment variables, then the optional SWITCHBOARD_CONFIG
 * file (JSON or YAML). Throws ConfigError naming the first bad value.
 */
export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const fileSettings = readConfigFile(env, cwd);
  const file = new ConfigReader(fileSettings, '');
  const maxConnections = envInt(env, 'SWITCHBOARD_MAX_CONNECTIONS', 10_000, { min: 10, max: 1_000_000 });
  file.onlyKeys(['providers', 'routes', 'models', 'chatModels', 'mediaModels', 'chat', 'worker', 'files', 'storefronts', 'agent', 'storagePlans', 'limits', 'oidc']);

  const port = envInt(env, 'PORT', 8080, { min: 0, max: 65535 });
  const role = (env.ROLE ?? 'all') as Role;
  if (!ROLES.includes(role)) throw new ConfigError('ROLE', `must be one of ${ROLES.join(', ')}, got ${JSON.stringify(env.ROLE)}`);
  const dataDir = resolve(cwd, env.DATA_DIR ?? './data');
  const host = env.HOST ?? '0.0.0.0';
  const publicBaseUrl = parseUrl('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL (leave it unset for the embedded SQLite store)');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');

  const chat = file.object('chat');
  chat?.onlyKeys(['maxOutputTokens', 'upstreamAfterLeaveMs']);
  const worker = file.object('worker');
  worker?.onlyKeys(['concurrency', 'leaseMs']);
  const files = file.object('files');
  files?.onlyKeys(['retentionHours', 'maxResultBytes']);

  const providers = parseProviders(file.object('providers'), env);
  const routes = parseRoutes(file.object('routes'), providers);

  return {
    port,
    host,
    role,
    dataDir,
    publicBaseUrl,
    publicBaseUrlIsExplicit: Boolean(env.PUBLIC_BASE_URL),
    databaseUrl,
    redisUrl,
    redisPrefix: env.SWITCHBOARD_REDIS_PREFIX || 'switchboard:',
    secretKey: env.SWITCHBOARD_SECRET_KEY?.trim() || undefined,
    redisCommandTimeoutMs: envInt(env, 'SWITCHBOARD_REDIS_TIMEOUT_MS', 150, { min: 10, max: 5_000 }),
    s3: parseS3(env),
    mail: parseMail(env, publicBaseUrl),
    adminToken: parseAdminToken(env),
    allowPrivateUrls: envBool(env, 'SWITCHBOARD_ALLOW_PRIVATE_URLS', false),
    webhooks: parseWebhookPolicy(env),
    webhookSending: {
      slots: envInt(env, 'SWITCHBOARD_WEBHOOK_CONCURRENCY', 64, { min: 1, max: 10_000 }),
      timeoutMs: envInt(env, 'SWITCHBOARD_WEBHOOK_TIMEOUT_MS', 10_000, { min: 1_000, max: 60_000 }),
    },
    budgetAlertCheckMs: envInt(env, 'SWITCHBOARD_BUDGET_ALERT_CHECK_MS', 60_000, { min: 100, max: 3_600_000 }),
    limits: parseLimits(file.object('limits')),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    metricsToken: env.METRICS_TOKEN || undefined,
    requestTimeoutMs: envInt(env, 'SWITCHBOARD_REQUEST_TIMEOUT_MS', 60_000, { min: 1_000, max: 3_600_000 }),
    maxConnections,
    // An eighth of the global cap (1,250 of 10,000): one address never holds the server, and a batch
    // client running a thousand requests at once from one machine (a NAT, a load test) still fits.
    maxConnectionsPerAddress: envInt(env, 'SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS', Math.max(1, Math.floor(maxConnections / 8)), { min: 1, max: 1_000_000 }),
    logLevel: parseLogLevel(env.LOG_LEVEL ?? 'info'),
    demoUser: envBool(env, 'SWITCHBOARD_DEMO_USER', true),
    fileRetentionMs: (files?.number('retentionHours', { min: 1 / 60 }) ?? 72) * HOUR_MS,
    maxResultBytes: files?.number('maxResultBytes', { min: 1024, integer: true }) ?? 512 * 1024 * 1024,
    tracing: readTracingConfig(env),
    chat: {
      maxOutputTokens:
        envIntOptional(env, 'SWITCHBOARD_CHAT_MAX_OUTPUT_TOKENS', { min: 1, max: 1_000_000 }) ??
        chat?.number('maxOutputTokens', { min: 1, max: 1_000_000, integer: true }) ??
        32_768,
      upstreamAfterLeaveMs:
        envIntOptional(env, 'SWITCHBOARD_CHAT_UPSTREAM_AFTER_LEAVE_MS', { min: 0, max: 3_600_000 }) ??
        chat?.number('upstreamAfterLeaveMs', { min: 0, max: 3_600_000, integer: true }) ??
        300_000,
    },
    worker: {
      concurrency:
        envIntOptional(env, 'SWITCHBOARD_WORKER_CONCURRENCY', { min: 1, max: 10_000 }) ??
        worker?.number('concurrency', { min: 1, max: 10_000, integer: true }) ??
        256,
      leaseMs: worker?.number('leaseMs', { min: 1000, max: 3_600_000, integer: true }) ?? 30_000,
    },
    providers,
    routes,
    models: parseModelOverrides(file.object('models')),
    addedChatModels: parseAddedChatModels(file.raw('chatModels')),
    addedMediaModels: parseAddedMediaModels(file.raw('mediaModels')),
    storefronts: parseStorefronts(file.object('storefronts')),
    agent: parseAgent(file.object('agent')),
    storagePlans: parseStoragePlans(file.object('storagePlans')),
    payments: parsePaymentsConfig(env),
    sso: parseSsoProviders(file.object('oidc'), env),
    faultPoints: (env.SWITCHBOARD_FAULT_POINTS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''),
  };
}

/** `storagePlans: { <id>: { name, quotaBytes, monthlyPriceMicroUsd } }`: replaces the built-in plans. */
function parseStoragePlans(section: ConfigReader | undefined): StoragePlan[] | undefined {
  if (!section) return undefined;
  const plans: StoragePlan[] = [];
  for (const id of section.keys()) {
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(id)) throw new ConfigError(section.field(id), 'storage plan ids are lower-case letters, digits, - and _');
    const plan = section.object(id);
    if (!plan) throw new ConfigError(section.field(id), 'must be an object');
    plan.onlyKeys(['name', 'quotaBytes', 'monthlyPriceMicroUsd']);
    const quotaBytes = plan.number('quotaBytes', { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true });
    const monthlyPriceMicro = plan.number('monthlyPriceMicroUsd', { min: 0, max: 1e12, integer: true });
    if (quotaBytes === undefined || monthlyPriceMicro === undefined) throw new ConfigError(section.field(id), 'needs quotaBytes and monthlyPriceMicroUsd');
    plans.push({ id, name: plan.string('name') ?? id, quotaBytes, monthlyPriceMicro });
  }
  if (plans.length === 0) throw new ConfigError('storagePlans', 'name at least one plan, or leave storagePlans out for the built-in plans');
  return plans;
}

/**
 * `storefronts: { <id>: { name?, hosts: [...], agentRuns?: true } }`. A storefront with no hosts is
 * the default (at most one); without one, a storefront `default` takes every host nobody names.
 */
function parseStorefronts(section: ConfigReader | undefined): StorefrontConfig[] {
  const out: StorefrontConfig[] = [];
  const seenHosts = new Map<string, string>();
  for (const id of section?.keys() ?? []) {
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(id)) throw new ConfigError(section?.field(id) ?? id, 'storefront ids are lower-case letters, digits, - and _');
    const s = section?.object(id);
    if (!s) throw new ConfigError(section?.field(id) ?? id, 'must be an object');
    s.onlyKeys(['name', 'hosts', 'agentRuns']);
    const hosts = (s.stringArray('hosts') ?? []).map((h) => h.trim().toLowerCase());
    for (const host of hosts) {
      if (!/^[a-z0-9.-]+$/.test(host)) throw new ConfigError(s.field('hosts'), `${JSON.stringify(host)} is not a host name (no scheme, no port)`);
      const other = seenHosts.get(host);
      if (other !== undefined) throw new ConfigError(s.field('hosts'), `${host} is already a host of storefront ${other}`);
      seenHosts.set(host, id);
    }
    out.push({ id, name: s.string('name') ?? id, hosts, agentRuns: s.boolean('agentRuns') ?? true });
  }
  const defaults = out.filter((f) => f.hosts.length === 0);
  if (defaults.length > 1) throw new ConfigError('storefronts', `at most one storefront may have no hosts (the default); ${defaults.map((f) => f.id).join(' and ')} have none`);
  const fallback = defaults[0] ?? out.find((f) => f.id === 'default');
  if (fallback) return [fallback, ...out.filter((f) => f !== fallback)];
  return [{ id: 'default', name: 'Switchboard', hosts: [], agentRuns: true }, ...out];
}

function parseAgent(section: ConfigReader | undefined): AgentConfig {
  section?.onlyKeys(['maxOutputTokens', 'maxSteps', 'capabilityProbeHours', 'eventRetentionDays']);
  return {
    maxOutputTokens: section?.number('maxOutputTokens', { min: 64, max: 128_000, integer: true }) ?? 4_096,
    maxSteps: section?.number('maxSteps', { min: 4, max: 1_000, integer: true }) ?? 60,
    capabilityProbeIntervalMs: (section?.number('capabilityProbeHours', { min: 0.01, max: 24 * 30 }) ?? 24) * HOUR_MS,
    eventRetentionMs: (section?.number('eventRetentionDays', { min: 1, max: 3650 }) ?? 30) * 24 * HOUR_MS,
  };
}

function readConfigFile(env: Env, cwd: string): unknown {
  const path = env.SWITCHBOARD_CONFIG;
  if (!path) return {};
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new ConfigError('SWITCHBOARD_CONFIG', `cannot read ${full}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both.
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError('SWITCHBOARD_CONFIG', `${full} is neither valid JSON nor YAML: ${(error as Error).message}`);
  }
  return substituteEnv(parsed ?? {}, env, '');
}

/** Replaces `${NAME}` in every string of the file with the environment variable NAME. */
function substituteEnv(value: unknown, env: Env, path: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) throw new ConfigError(path || '(root)', `refers to the environment variable ${name}, which is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, path ? `${path}.${k}` : k);
    return out;
  }
  return value;
}

function parseProviders(section: ConfigReader | undefined, env: Env): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {
    local: { type: 'local', baseUrl: undefined, apiKey: undefined, timeoutMs: 60_000, concurrency: 64, options: localOptionsFromEnv(env) },
  };
  if (!section) return providers;
  for (const name of section.keys()) {
    if (!PROVIDER_NAME.test(name)) {
      throw new ConfigError(section.field(name), 'provider names are lower-case letters, digits, - and _');
    }
    const p = section.object(name);
    if (!p) throw new ConfigError(section.field(name), 'must be an object');
    p.onlyKeys(['type', 'baseUrl', 'apiKey', 'timeoutMs', 'concurrency', 'options']);
    providers[name] = { ...parseProviderFields(p), apiKey: p.string('apiKey') };
  }
  return providers;
}

function localOptionsFromEnv(env: Env): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const latency = envIntOptional(env, 'SWITCHBOARD_LOCAL_LATENCY_MS', { min: 0, max: 600_000 });
  if (latency !== undefined) options.latencyMs = latency;
  const rate = env.SWITCHBOARD_LOCAL_FAILURE_RATE;
  if (rate !== undefined && rate !== '') {
    const v = Number(rate);
    if (!Number.isFinite(v)) throw new ConfigError('SWITCHBOARD_LOCAL_FAILURE_RATE', 'must be a number from 0 to 1');
    checkBounds('SWITCHBOARD_LOCAL_FAILURE_RATE', v, { min: 0, max: 1 });
    options.failureRate = v;
  }
  return options;
}

function parseRoutes(section: ConfigReader | undefined, providers: Record<string, ProviderConfig>): Record<string, RouteTarget[]> {
  const routes: Record<string, RouteTarget[]> = {};
  if (!section) return routes;
  for (const modelId of section.keys()) {
    routes[modelId] = parseRouteList(section.raw(modelId), section.field(modelId), modelId, (name) => providers[name] !== undefined);
  }
  return routes;
}

function parseModelOverrides(section: ConfigReader | undefined): Record<string, ModelOverride> {
  const out: Record<string, ModelOverride> = {};
  if (!section) return out;
  for (const id of section.keys()) {
    const m = section.object(id);
    if (m) out[id] = parseModelOverride(m);
  }
  return out;
}

function parseAddedChatModels(raw: unknown): AddedChatModel[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ConfigError('chatModels', 'must be a list');
  return raw.map((item, i) => {
    const r = new ConfigReader(item, `chatModels[${i}]`);
    r.onlyKeys(['id', 'name', 'vendor', 'inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'webSearchPrice', 'protocols', 'contextWindow', 'maxOutputTokens']);
    const protocols = r.stringArray('protocols') ?? ['openai'];
    for (const p of protocols) {
      if (p !== 'openai' && p !== 'anthropic') throw new ConfigError(r.field('protocols'), `unknown protocol ${JSON.stringify(p)} (allowed: openai, anthropic)`);
    }
    const id = r.requiredString('id');
    const cached = r.string('cachedInputPrice');
    const optional = (key: 'cacheWritePrice' | 'cacheWrite1hPrice' | 'webSearchPrice'): string | undefined => {
      const v = r.string(key);
      return v === undefined ? undefined : usdString(r.field(key), v);
    };
    const cacheWrite1hPrice = optional('cacheWrite1hPrice');
    const cacheWritePrice = optional('cacheWritePrice');
    // A request with a one-hour mark may write five-minute entries too (its other marks).
    if (cacheWrite1hPrice !== undefined && cacheWritePrice === undefined) throw new ConfigError(r.field('cacheWrite1hPrice'), 'needs cacheWritePrice (the 5-minute write price) as well');
    return {
      id,
      name: r.string('name') ?? id,
      vendor: r.string('vendor'),
      inputPrice: usdString(r.field('inputPrice'), r.requiredString('inputPrice')),
      outputPrice: usdString(r.field('outputPrice'), r.requiredString('outputPrice')),
      cachedInputPrice: cached === undefined ? undefined : usdString(r.field('cachedInputPrice'), cached),
      cacheWritePrice,
      cacheWrite1hPrice,
      webSearchPrice: optional('webSearchPrice'),
      protocols: protocols as Array<'openai' | 'anthropic'>,
      contextWindow: r.number('contextWindow', { min: 1, integer: true }) ?? 128_000,
      maxOutputTokens: r.number('maxOutputTokens', { min: 1, integer: true }) ?? 16_384,
    };
  });
}

function parseAddedMediaModels(raw: unknown): AddedMediaModel[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ConfigError('mediaModels', 'must be a list');
  return raw.map((item, i) => {
    const r = new ConfigReader(item, `mediaModels[${i}]`);
    r.onlyKeys(['id', 'name', 'basedOn', 'vendor', 'pricing']);
    const id = r.requiredString('id');
    return {
      id,
      name: r.string('name') ?? id,
      basedOn: r.requiredString('basedOn'),
      vendor: r.string('vendor'),
      pricing: r.has('pricing') ? parsePricing(r.raw('pricing'), r.field('pricing')) : undefined,
    };
  });
}

function parseS3(env: Env): S3Config | undefined {
  if (!env.S3_ENDPOINT && !env.S3_BUCKET) return undefined;
  const need = (name: string): string => {
    const v = env[name];
    if (!v) throw new ConfigError(name, 'is required when S3 storage is configured (S3_ENDPOINT or S3_BUCKET is set)');
    return v;
  };
  return {
    endpoint: parseUrl('S3_ENDPOINT', need('S3_ENDPOINT')),
    bucket: need('S3_BUCKET'),
    accessKeyId: need('S3_ACCESS_KEY_ID'),
    secretAccessKey: need('S3_SECRET_ACCESS_KEY'),
    region: env.S3_REGION || 'us-east-1',
    publicUrl: env.S3_PUBLIC_URL ? parseUrl('S3_PUBLIC_URL', env.S3_PUBLIC_URL).replace(/\/+$/, '') : undefined,
  };
}

function parseUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, `must be a URL, got ${JSON.stringify(value)}`);
  }
  if (!/^(https?|postgres(ql)?|rediss?):$/.test(url.protocol)) throw new ConfigError(field, `unsupported URL scheme ${url.protocol}`);
  return value;
}

function parseLogLevel(value: string): string {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(value)) throw new ConfigError('LOG_LEVEL', `must be one of ${levels.join(', ')}`);
  return value;
}

function envBool(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1 or 0 (true or false), got ${JSON.stringify(v)}`);
}

function envIntOptional(env: Env, name: string, bounds: { min?: number; max?: number }): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new ConfigError(name, `must be an integer, got ${JSON.stringify(v)}`);
  const n = Number(v);
  checkBounds(name, n, bounds);
  return n;
}

function envInt(env: Env, name: string, fallback: number, bounds: { min?: number; max?: number }): number {
  return envIntOptional(env, name, bounds) ?? fallback;
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: the addresses (IPs, CIDRs, or loopback / linklocal / uniquelocal) of the reverse proxies
 * whose X-Forwarded-For / -Proto / -Host the gateway believes. Unset: none, so a client cannot choose
 * its own address (rate limits) or scheme (the Secure cookie flag) by sending those headers.
 */
function parseTrustProxy(value: string | undefined): string[] | false {
  if (value === undefined || value.trim() === '') return false;
  const entries = value.split(',').map((v) => v.trim()).filter((v) => v !== '');
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const ipVersion = isIP(address);
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (ipVersion === 6 ? 128 : 32));
    if (!(PROXY_KEYWORDS.includes(entry) || (ipVersion !== 0 && validBits && extra === undefined))) {
      throw new ConfigError('TRUST_PROXY', `${entry.slice(0, 80)} is not an IP address, a CIDR range or one of ${PROXY_KEYWORDS.join(', ')}`);
    }
  }
  return entries;
}

function parseMail(env: Env, publicBaseUrl: string): MailConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(smtpUrl);
    } catch {
      throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
  }
  const from = env.MAIL_FROM || `Switchboard <no-reply@${new URL(publicBaseUrl).hostname}>`;
  if (/[\r\n]/.test(from) || !/@/.test(from)) throw new ConfigError('MAIL_FROM', 'must be one address, e.g. "Switchboard <no-reply@example.com>"');
  return { smtpUrl, from };
}
