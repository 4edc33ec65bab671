import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Tracer } from '../../src/ports/tracer.port.ts';
import { type Gateway, startGateway } from '../../src/gateway.ts';
import { createTestDatabase } from './databases.ts';
import { startTestS3Server } from './s3-server.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from './services.ts';

export type GatewayMode = 'embedded' | 'scaleout';

/** At least 32 characters: a shorter ADMIN_TOKEN stops the start. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijkl';

export interface TestGatewayOptions {
  /** Extra environment (PORT and DATA_DIR are set by the harness). */
  env?: Record<string, string>;
  /** Written to a file and passed as SWITCHBOARD_CONFIG. */
  configFile?: Record<string, unknown>;
  /** Collect log lines here instead of discarding them. */
  logLines?: string[];
  /** Last word on the environment, after the stores are set (a fault test points DATABASE_URL at a proxy). */
  adjustEnv?: (env: Record<string, string>) => void | Promise<void>;
  /** A tracer for each gateway started (a tracing test's in-memory exporter); else as the environment says. */
  tracer?: () => Tracer;
}

export interface TestGateway {
  mode: GatewayMode;
  url: string;
  gateway: Gateway;
  /** Environment that reaches the same stores (for a second process or the CLI). */
  env: Record<string, string>;
  /** Calls the admin API and returns the parsed body (throws on a non-2xx status). */
  admin<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** A user with a balance and an API key (a management key, so tests can make limited keys with it). */
  createUser(balanceCents: number): Promise<{ userId: string; key: string }>;
  /** fetch against the gateway with the given API key. */
  api(key: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * A whole gateway in this process on 127.0.0.1, in embedded mode (SQLite, in-memory bus, local files)
 * or scale-out mode (a fresh PostgreSQL schema, Redis with a private prefix, an in-process S3 server).
 */
export async function startTestGateway(mode: GatewayMode, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-gw-'));
  const env: Record<string, string> = {
    DATA_DIR: dir,
    ADMIN_TOKEN,
    SWITCHBOARD_DEMO_USER: '0',
    SWITCHBOARD_ALLOW_PRIVATE_URLS: '1',
    // Receivers listen on 127.0.0.1 at random ports, over plain http.
    SWITCHBOARD_WEBHOOK_PORTS: 'any',
    SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '1',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  let disposeDb: (() => Promise<void>) | undefined;
  let closeS3: (() => Promise<void>) | undefined;
  if (mode === 'scaleout') {
    const created = await createTestDatabase('postgres');
    await created.db.handle.close();
    disposeDb = created.dispose;
    Object.assign(env, created.db.env);
    env.REDIS_URL = TEST_REDIS_URL;
    env.SWITCHBOARD_REDIS_PREFIX = `sbtest:${randomBytes(4).toString('hex')}:`;
    // Several processes seal live upstream keys with one shared key.
    env.SWITCHBOARD_SECRET_KEY = randomBytes(32).toString('hex');
    const s3 = await startTestS3Server();
    closeS3 = s3.close;
    Object.assign(env, {
      S3_ENDPOINT: s3.config.endpoint,
      S3_BUCKET: s3.config.bucket,
      S3_ACCESS_KEY_ID: s3.config.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.config.secretAccessKey,
      S3_REGION: s3.config.region,
    });
  }
  if (options.configFile) {
    const file = join(dir, 'switchboard.json');
    writeFileSync(file, JSON.stringify(options.configFile));
    env.SWITCHBOARD_CONFIG = file;
  }
  await options.adjustEnv?.(env);
  const config = loadConfig(env);
  const lines = options.logLines;
  const logger = pino(
    { level: config.logLevel, base: { service: 'switchboard' } },
    { write: (line: string) => void lines?.push(line) },
  );
  const gateway = await startGateway(config, { logger, listenPort: 0, ...(options.tracer ? { tracer: options.tracer() } : {}) });
  const url = gateway.url ?? '';
  env.PUBLIC_BASE_URL = url;

  const request = async (headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, body: parsed, headers: response.headers };
  };

  const harness: TestGateway = {
    mode,
    url,
    gateway,
    env,
    async admin<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await request({ authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, method, path, body);
      if (res.status >= 300) throw new Error(`admin ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as T;
    },
    async createUser(balanceCents: number) {
      const user = await harness.admin<{ id: string }>('POST', '/admin/v1/users', { balanceCents });
      const key = await harness.admin<{ key: string }>('POST', `/admin/v1/users/${user.id}/api-keys`, { name: 'test', manageKeys: true });
      return { userId: user.id, key: key.key };
    },
    api(key, method, path, body) {
      return request(key ? { authorization: `Bearer ${key}` } : {}, method, path, body);
    },
    async close() {
      await gateway.close();
      await disposeDb?.();
      await closeS3?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * Registers `body` once per mode: embedded always; scale-out when PostgreSQL and Redis are reachable
 * (skipped with a message otherwise, failing under SWITCHBOARD_REQUIRE_SERVICES=1).
 */
export function describeEachMode(name: string, body: (ctx: { gw: TestGateway }) => void, options: TestGatewayOptions = {}): void {
  for (const mode of ['embedded', 'scaleout'] as const) {
    describe(`${name} [${mode}]`, async () => {
      if (mode === 'scaleout') {
        const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
        if (skip) {
          describe('skipped', { skip }, () => {});
          return;
        }
      }
      const ctx = {} as { gw: TestGateway };
      before(async () => {
        ctx.gw = await startTestGateway(mode, options);
      });
      after(async () => {
        await ctx.gw?.close();
      });
      body(ctx);
    });
  }
}
