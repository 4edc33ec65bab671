import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/support/child-gateway.ts';
import { createTestDatabase } from './databases.ts';
import { ADMIN_TOKEN, type GatewayMode } from './gateway.ts';
import { TEST_REDIS_URL } from './services.ts';

/** Stores shared by several gateway processes (one SQLite data dir, or one PostgreSQL schema + Redis prefix). */
export interface SharedStores {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export interface SharedStoresOptions {
  /** Scale-out: this Redis instead of the shared test Redis (a test that kills and restarts its own). */
  redisUrl?: string;
}

export async function createSharedStores(mode: GatewayMode, configFile: Record<string, unknown>, options: SharedStoresOptions = {}): Promise<SharedStores> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-proc-'));
  const configPath = join(dir, 'switchboard.json');
  writeFileSync(configPath, JSON.stringify(configFile));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    SWITCHBOARD_DEMO_USER: '0',
    SWITCHBOARD_ALLOW_PRIVATE_URLS: '1',
    SWITCHBOARD_WEBHOOK_PORTS: 'any',
    SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '1',
    SWITCHBOARD_CONFIG: configPath,
    LOG_LEVEL: 'warn',
  };
  let disposeDb: (() => Promise<void>) | undefined;
  if (mode === 'scaleout') {
    const created = await createTestDatabase('postgres');
    await created.db.handle.close();
    disposeDb = created.dispose;
    Object.assign(env, created.db.env, { REDIS_URL: options.redisUrl ?? TEST_REDIS_URL, SWITCHBOARD_REDIS_PREFIX: `sbtest:${randomBytes(4).toString('hex')}:`, SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex') });
  }
  return {
    env,
    async dispose() {
      await disposeDb?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown hooks, no lease release. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Receive the process's output instead of discarding stdout and inheriting stderr. */
  stdout?: (chunk: Buffer) => void;
  stderr?: (chunk: Buffer) => void;
  /** Listen here (a restart on the address clients know) instead of on a free port. */
  port?: number;
}

export type GatewayRole = 'all' | 'api' | 'worker';

/**
 * A gateway in its own process on the shared stores; resolves once /healthz answers. A free port
 * can be taken by another test file between freePort() and the child's listen (EADDRINUSE): a child
 * that exits before it answered, on a port we chose, is started again on another, twice at most.
 */
export async function spawnGateway(stores: SharedStores, role: GatewayRole = 'all', extraEnv: Record<string, string> = {}, options: SpawnOptions = {}): Promise<GatewayProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(stores, role, extraEnv, options);
    } catch (error) {
      if (!(error instanceof ExitedEarly) || options.port !== undefined || attempt >= 3) throw error;
    }
  }
}

/**
 * Several gateways started at once. Each one that started is pushed to `fleet` as it does, so the
 * caller's `finally` stops it even when another failed to start (a process left running would hold
 * the test file open for ever).
 */
export async function spawnGateways<const Roles extends readonly GatewayRole[]>(stores: SharedStores, roles: Roles, fleet: GatewayProcess[]): Promise<{ [K in keyof Roles]: GatewayProcess }> {
  const started = await Promise.allSettled(
    roles.map(async (role) => {
      const process = await spawnGateway(stores, role);
      fleet.push(process);
      return process;
    }),
  );
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return started.map((r) => (r as PromiseFulfilledResult<GatewayProcess>).value) as { [K in keyof Roles]: GatewayProcess };
}

class ExitedEarly extends Error {}

async function spawnOnce(stores: SharedStores, role: GatewayRole, extraEnv: Record<string, string>, options: SpawnOptions): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    env: { ...stores.env, PORT: String(port), ROLE: role, PUBLIC_BASE_URL: url, ...extraEnv },
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', options.stderr ? 'pipe' : 'inherit'],
  });
  if (options.stdout) child.stdout?.on('data', options.stdout);
  if (options.stderr) child.stderr?.on('data', options.stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (role !== 'worker') {
    // 60 s: on CI's two cores, shared with browsers and other fleets, a start has taken over 30 s.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {}
      if (child.exitCode !== null) throw new ExitedEarly(`gateway process on ${url} exited before it answered (code ${child.exitCode})`);
      if (Date.now() > deadline) {
        // Not left running behind the failure: nobody else holds this process.
        child.kill('SIGKILL');
        await exited;
        throw new Error(`gateway process on ${url} did not start`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    child,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
